import { describe, expect, it } from "vitest";
import qaChannel, { qaConfigSchema } from "./index.ts";

describe("qa config", () => {
  it("applies documented defaults", () => {
    expect(qaConfigSchema.parse({ baseUrl: "http://127.0.0.1:4610" })).toMatchObject({
      tokenSecret: "HERALD_QA_TOKEN",
      maxLength: 4_000,
      delivery: "idempotent",
      requestTimeoutMs: 10_000,
      editRate: { limit: 5, intervalMs: 1_000 },
    });
  });

  it("names the failing field in errors", () => {
    const result = qaConfigSchema.safeParse({ baseUrl: "ftp://x", delivery: "maybe" });
    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((i) => i.path.join(".")) ?? [];
    expect(paths).toEqual(expect.arrayContaining(["baseUrl", "delivery"]));
  });

  it("reads the bot token from the named secret, never from the config", () => {
    const asked: string[] = [];
    const adapter = qaChannel.createAdapter(
      qaConfigSchema.parse({ baseUrl: "http://127.0.0.1:1" }),
      {
        accountId: "main",
        clock: Date.now,
        logger: {
          debug() {},
          info() {},
          warn() {},
          error() {},
          child: () => {
            throw new Error("unused");
          },
        },
        secret: (name) => {
          asked.push(name);
          return "herald:secret";
        },
      },
    );
    expect(asked).toEqual(["HERALD_QA_TOKEN"]);
    expect(adapter.receive?.selfIds?.("main")).toEqual(["herald"]);
  });

  it("rejects a token without a bot id", () => {
    expect(() =>
      qaChannel.createAdapter(qaConfigSchema.parse({ baseUrl: "http://127.0.0.1:1" }), {
        accountId: "main",
        clock: Date.now,
        logger: {
          debug() {},
          info() {},
          warn() {},
          error() {},
          child: () => {
            throw new Error("unused");
          },
        },
        secret: () => "no-colon",
      }),
    ).toThrow(/<bot id>:<secret>/);
  });
});
