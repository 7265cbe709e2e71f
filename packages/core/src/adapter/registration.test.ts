/**
 * Rate-limit buckets follow the adapter registration a call resolves to (DESIGN §3 "Accounts",
 * §4): a bare adapter is one bot, so a live session naming no account and a send naming the
 * account it serves share its buckets and pauses. Before, buckets were keyed by the account the
 * caller named, so the two spent the bot's limit twice (the fake platform answered 429).
 */
import { afterEach, describe, expect, it } from "vitest";
import { rateLimitCall } from "../delivery/ratelimit/call.ts";
import { eventually } from "../delivery/testing/harness.ts";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { AdapterRegistry } from "./registry.ts";

let runtime: MessageRuntime | undefined;
afterEach(async () => {
  await runtime?.stop(1_000);
  runtime = undefined;
});

const target = { kind: "group", id: "chat-1" } as const;
const input = { operation: "send", target } as const;

describe("rate-limit calls count against the resolved registration", () => {
  it("a bare adapter's calls share one account key, whatever account the caller named", () => {
    const bare = createFakeAdapter({ transport: inProcessTransport(new FakePlatform()) });
    const own = createFakeAdapter({ transport: inProcessTransport(new FakePlatform()) });
    const registry = new AdapterRegistry([bare, { accountId: "B", adapter: own }]);
    const viaA = registry.get("qa", "A"); // account A has no adapter of its own: the bare one
    expect(viaA).toBe(bare);
    expect(rateLimitCall(viaA, { channel: "qa", accountId: "A" }, input).accountId).toBeUndefined();
    expect(rateLimitCall(bare, { channel: "qa" }, input).accountId).toBeUndefined();
    // An account's own adapter keeps its own buckets.
    expect(rateLimitCall(own, { channel: "qa", accountId: "B" }, input).accountId).toBe("B");
    // Removed: no registration, the caller's account again.
    registry.remove("qa", "B");
    expect(rateLimitCall(own, { channel: "qa", accountId: "B" }, input).accountId).toBe("B");
    registry.remove("qa");
    expect(rateLimitCall(bare, { channel: "qa", accountId: "A" }, input).accountId).toBe("A");
  });

  it("a live session naming no account and a send naming the bare adapter's account share its buckets: 0 × 429", async () => {
    // The bot may make 1 call per 300 ms; the fake enforces it strictly.
    const platform = new FakePlatform({
      limits: [{ scope: "global", limit: 1, intervalMs: 300 }],
    });
    const store = new SqliteStateStore({ path: ":memory:" });
    runtime = createMessageRuntime({
      store,
      adapters: [
        createFakeAdapter({
          transport: inProcessTransport(platform),
          rateLimits: [{ scope: "account", limit: 1, intervalMs: 300 }],
        }),
      ],
      delivery: { pollIntervalMs: 5 },
    });
    const rt = runtime;
    await rt.start();
    const live = rt
      .live({ channel: "qa", target }, { mode: "block" })
      .then((s) => s.finalize("live, no account named"));
    const sent = rt.send(outboundMessage("send naming bot-1", { accountId: "bot-1" }));
    await Promise.all([live, sent]);
    await eventually(
      () => platform.visible().length,
      (n) => n === 2,
    );
    expect(platform.calls.map((c) => c.outcome)).toEqual(["ok", "ok"]);
    expect(
      platform
        .visible()
        .map((m) => m.text)
        .sort(),
    ).toEqual(["live, no account named", "send naming bot-1"]);
    await store.close();
  });
});
