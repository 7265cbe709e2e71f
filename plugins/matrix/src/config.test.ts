/** The config schema: defaults, units, and errors that name the field. */
import { describe, expect, it } from "vitest";
import { matrixConfigSchema } from "./config.ts";

describe("matrixConfigSchema", () => {
  it("applies the documented defaults and trims the homeserver URL", () => {
    const c = matrixConfigSchema.parse({
      homeserverUrl: "https://matrix.example.org/",
      deviceId: "HERALDBOT",
    });
    expect(c).toMatchObject({
      homeserverUrl: "https://matrix.example.org",
      accessTokenEnv: "MATRIX_ACCESS_TOKEN",
      maxTextLength: 16_000,
      maxContentBytes: 60_000,
      msgtype: "m.notice",
      roomRateLimit: { limit: 10, intervalMs: 10_000 },
      sync: { pollTimeoutMs: 30_000, timelineLimit: 50, invites: "ignore", inviters: [] },
    });
  });

  it.each([
    [{ deviceId: "D" }, "homeserverUrl"],
    [{ homeserverUrl: "https://m.example.org" }, "deviceId"],
    [{ homeserverUrl: "https://m.example.org", deviceId: "D", userId: "herald" }, "userId"],
    [
      { homeserverUrl: "https://m.example.org", deviceId: "D", sync: { invites: "always" } },
      "sync.invites",
    ],
    [{ homeserverUrl: "https://m.example.org", deviceId: "D", tokenEnv: "X" }, "tokenEnv"],
  ])("rejects %j naming %s", (input, path) => {
    const result = matrixConfigSchema.safeParse(input);
    expect(result.success).toBe(false);
    const paths =
      result.error?.issues.map((i) =>
        i.path.length ? i.path.join(".") : (i as { keys?: string[] }).keys?.join("."),
      ) ?? [];
    expect(paths).toContain(path);
  });
});
