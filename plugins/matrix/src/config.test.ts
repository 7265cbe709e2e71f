/** The config schema: defaults, units, and errors that name the field. */
import { describe, expect, it } from "vitest";
import { matrixConfigSchema, txnRetentionMsOf } from "./config.ts";
import { matrixCapabilities } from "./index.ts";

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
    [
      { homeserverUrl: "https://m.example.org", deviceId: "D", homeserver: { kind: "matrix.org" } },
      "homeserver.kind",
    ],
    [
      { homeserverUrl: "https://m.example.org", deviceId: "D", homeserver: { txnRetentionMs: -1 } },
      "homeserver.txnRetentionMs",
    ],
  ])("rejects %j naming %s", (input, path) => {
    const result = matrixConfigSchema.safeParse(input);
    expect(result.success).toBe(false);
    const paths =
      result.error?.issues.map((i) =>
        i.path.length ? i.path.join(".") : (i as { keys?: string[] }).keys?.join("."),
      ) ?? [];
    expect(paths).toContain(path);
  });

  it.each([
    [undefined, 0],
    ["other", 0],
    ["dendrite", 0],
    ["synapse", 82_800_000],
    ["conduit", 82_800_000],
  ] as const)(
    "homeserver.kind %s trusts a txnId for %i ms, unless txnRetentionMs says",
    (kind, ms) => {
      const base = { homeserverUrl: "https://m.example.org", deviceId: "D" };
      const c = matrixConfigSchema.parse(kind ? { ...base, homeserver: { kind } } : base);
      expect(txnRetentionMsOf(c.homeserver)).toBe(ms);
      expect(matrixCapabilities(c).delivery?.idempotencyWindowMs).toBe(ms);
      const set = matrixConfigSchema.parse({
        ...base,
        homeserver: { kind, txnRetentionMs: 600_000 },
      });
      expect(matrixCapabilities(set).delivery?.idempotencyWindowMs).toBe(600_000);
    },
  );
});
