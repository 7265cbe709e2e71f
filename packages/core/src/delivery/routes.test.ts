/**
 * Rate-limit routes end to end (DESIGN §4, §8; CASES C37): the fake platform enforces its limits
 * strictly (429 past them), durable sends and live previews run through one runtime on manual
 * time, and the assertions are on what the platform saw and shows.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type LiveHarness, liveHarness } from "../live/testing/harness.ts";
import type { RateLimitScope } from "../message/rateLimit.ts";
import type { FakePlatformLimit } from "../testing/fakePlatform.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { eventually } from "./testing/harness.ts";

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

const dm = (id: string) => ({ kind: "direct" as const, id });

/** Moves manual time in `stepMs` steps until `done()` holds (at most `maxMs` of manual time). */
async function until(
  harness: LiveHarness,
  done: () => boolean | Promise<boolean>,
  stepMs = 50,
  maxMs = 30_000,
): Promise<void> {
  for (let t = 0; t <= maxMs; t += stepMs) {
    await new Promise((r) => setTimeout(r, 2));
    if (await done()) return;
    await harness.time.advance(stepMs);
    harness.runtime.worker.kick();
  }
  throw new Error(`not done within ${maxMs} ms of manual time`);
}

const sendsTo = (harness: LiveHarness, chat: string) =>
  harness.platform.calls.filter((c) => c.op === "send" && c.chat === chat);

describe("rate-limit routes against a strict fake platform", () => {
  it("C37: a 429 without retry-after pauses only its route, for the backoff; the retry lands once", async () => {
    // maxInMemoryWaitMs 0: every rate-limit wait goes back to the durable queue (manual time).
    h = await liveHarness({
      adapter: { rateLimitScope: "route", live: { editRate: { limit: 1, intervalMs: 1_000 } } },
      delivery: { maxInMemoryWaitMs: 0 },
    });
    const harness = h;
    // Like Google Chat: 429 RESOURCE_EXHAUSTED and no Retry-After.
    harness.platform.failNext(
      { type: "status", status: 429, code: "RESOURCE_EXHAUSTED" },
      1,
      "send",
    );
    const t0 = harness.time.now();
    await harness.runtime.enqueue(outboundMessage("first", { target: dm("dm-1") }));
    await eventually(
      () => sendsTo(harness, "dm-1").some((c) => c.outcome === "status 429"),
      Boolean,
    );
    // The platform's answer is seen before the worker's write of it committed (group commit:
    // the next tick): wait for the stored failure.
    const intent = await eventually(
      async () => (await harness.store.listIntents({ limit: 10 }))[0],
      (i) => i?.failure !== undefined,
    );
    // Backoff with random() = 0.5: 75 % of baseMs 100.
    expect(intent?.failure?.kind).toBe("rate_limit");
    expect((intent?.nextAttemptAt ?? 0) - t0).toBe(75);

    // A live preview in the same chat is a send on the same route: it waits for the pause…
    const live = await harness.runtime.live(harness.target, { idempotencyKey: "reply:c37" });
    live.update("thinking");
    // …while another chat's send goes at once (manual time has not moved).
    await harness.runtime.enqueue(outboundMessage("other chat", { target: dm("dm-2") }));
    await eventually(() => harness.platform.visible("dm-2").length === 1, Boolean);
    expect(sendsTo(harness, "dm-2").map((c) => c.at - t0)).toEqual([0]);
    expect(harness.visible()).toEqual([]);

    await until(harness, () => harness.visible().length === 2, 25);
    expect(harness.visible().sort()).toEqual(["first", "thinking"]);
    const okAt = sendsTo(harness, "dm-1")
      .filter((c) => c.outcome === "ok")
      .map((c) => c.at - t0);
    expect(Math.min(...okAt)).toBeGreaterThanOrEqual(75);
    await until(harness, async () => {
      live.finalize("done").catch(() => {});
      return harness.visible().includes("done");
    });
    expect(harness.platform.visible("dm-1").filter((m) => m.text === "first")).toHaveLength(1);
  });

  it("0 × 429 under per-operation limits; previews and durable sends share one chat's send bucket", async () => {
    const platformLimits: FakePlatformLimit[] = [
      { scope: "chat", limit: 1, intervalMs: 1_000, ops: ["send"] },
      { scope: "chat", limit: 3, intervalMs: 1_000, ops: ["edit"] },
      { scope: "global", limit: 8, intervalMs: 1_000 },
    ];
    const declared: RateLimitScope[] = [
      { scope: "chat", limit: 1, intervalMs: 1_000, operations: ["send"] },
      { scope: "chat", limit: 3, intervalMs: 1_000, operations: ["edit"] },
      { scope: "account", limit: 8, intervalMs: 1_000 },
    ];
    h = await liveHarness({
      platform: { limits: platformLimits },
      adapter: {
        rateLimits: declared,
        maxLength: 8,
        live: { editRate: { limit: 3, intervalMs: 1_000 } },
      },
      delivery: { maxInMemoryWaitMs: 0 },
    });
    const harness = h;
    const live = await harness.runtime.live(harness.target, { idempotencyKey: "reply:shared" });
    live.update("preview");
    await eventually(() => harness.visible().length === 1, Boolean);
    // The preview spent dm-1's send token: durable sends to dm-1 wait for it; others do not.
    for (let i = 0; i < 3; i++) {
      await harness.runtime.enqueue(outboundMessage(`dm1 #${i}`, { target: dm("dm-1") }));
    }
    for (let i = 2; i <= 9; i++) {
      await harness.runtime.enqueue(outboundMessage(`to ${i}`, { target: dm(`dm-${i}`) }));
    }
    for (const text of ["preview one", "preview one two", "preview one two three"]) {
      live.update(text);
      await harness.time.advance(200);
    }
    const final = live.finalize("final answer, in two parts");
    final.catch(() => {});
    await until(harness, async () => {
      const intents = await harness.store.listIntents({ limit: 100 });
      return intents.every((i) => i.status === "sent" || i.status === "cancelled");
    });
    await final;
    expect(harness.platform.rateLimited).toBe(0);
    for (let i = 2; i <= 9; i++) {
      expect(harness.platform.visible(`dm-${i}`).map((m) => m.text)).toEqual([`to ${i}`]);
    }
    const dm1 = harness.visible();
    for (let i = 0; i < 3; i++) expect(dm1.filter((t) => t === `dm1 #${i}`)).toHaveLength(1);
    expect(dm1.join("")).toContain("final an");
    // The first durable send to dm-1 went only after the preview's token came back.
    const first = sendsTo(harness, "dm-1");
    expect((first[1]?.at ?? 0) - (first[0]?.at ?? 0)).toBeGreaterThanOrEqual(1_000);
  });

  it("header feedback slows a route before it 429s (nothing declared), previews included", async () => {
    h = await liveHarness({
      platform: {
        limits: [{ scope: "chat", limit: 2, intervalMs: 1_000, ops: ["send"] }],
        reportLimits: true,
      },
      adapter: { routes: true, live: { editRate: { limit: 5, intervalMs: 1_000 } } },
      delivery: { maxInMemoryWaitMs: 0 },
    });
    const harness = h;
    const live = await harness.runtime.live(harness.target, { idempotencyKey: "reply:headers" });
    live.update("preview");
    for (let i = 0; i < 6; i++) {
      await harness.runtime.enqueue(outboundMessage(`m${i}`, { target: dm("dm-1") }));
    }
    await until(harness, () => harness.visible().filter((t) => t.startsWith("m")).length === 6);
    expect(harness.platform.rateLimited).toBe(0);
    expect(harness.visible().filter((t) => t.startsWith("m"))).toEqual([
      "m0",
      "m1",
      "m2",
      "m3",
      "m4",
      "m5",
    ]);
    expect(harness.visible()).toContain("preview");
    const final = live.finalize("preview, finished");
    final.catch(() => {});
    await until(harness, () => harness.visible().includes("preview, finished"));
    expect(harness.platform.rateLimited).toBe(0);
  });
});
