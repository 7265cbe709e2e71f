/**
 * The scheduler's margins against a strict fake platform, on real time (DESIGN §4; [H19] goal
 * 3): durable sends, and live previews and edits, are both re-counted at their answer, so the
 * blanket margin (1 % of the interval + 1 ms) is not what keeps them under the limit — with
 * calls that reach the platform up to 12 ms after they started and answer up to 12 ms after
 * that (four times the margin of a 200 ms window), the fake still sees 0 × 429.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { RateLimitScope } from "../message/rateLimit.ts";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { sleep } from "../sleep.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, type FakeTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform, type FakePlatformLimit } from "../testing/fakePlatform.ts";
import { newIntent, outboundMessage } from "../testing/fixtures.ts";
import { scaledMs } from "../testing/timeScale.ts";

const WINDOW_MS = 200;
const JITTER_MS = 12;

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

/** A seeded pseudo-random in [0, 1) (the same delays every run). */
function seeded(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    return x / 2_147_483_648;
  };
}

/** Reaches the platform 0–JITTER_MS after the call starts; answers 0–JITTER_MS after that. */
function jittered(platform: FakePlatform, random: () => number): FakeTransport {
  return async (call) => {
    await sleep(Math.floor(random() * JITTER_MS));
    try {
      return platform.call(call);
    } finally {
      await sleep(Math.floor(random() * JITTER_MS));
    }
  };
}

async function start(
  platformLimits: FakePlatformLimit[],
  declared: RateLimitScope[],
  editRate?: { limit: number; intervalMs: number },
): Promise<{ platform: FakePlatform; store: SqliteStateStore; runtime: MessageRuntime }> {
  const platform = new FakePlatform({ limits: platformLimits });
  const store = new SqliteStateStore({ path: ":memory:" });
  const runtime = createMessageRuntime({
    store,
    adapters: [
      createFakeAdapter({
        transport: jittered(platform, seeded(7)),
        rateLimits: declared,
        ...(editRate ? { live: { editRate } } : {}),
      }),
    ],
    delivery: { concurrency: 16, pollIntervalMs: 5, maxInMemoryWaitMs: 2_000 },
  });
  await runtime.start();
  stop = async () => {
    await runtime.stop(2_000);
    await store.close();
  };
  return { platform, store, runtime };
}

async function until(done: () => boolean | Promise<boolean>, maxMs = 15_000): Promise<void> {
  const deadline = Date.now() + scaledMs(maxMs);
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not done within ${maxMs} ms`);
    await sleep(10);
  }
}

describe("rate-limit margins against a strict fake platform (real time)", () => {
  it("durable sends: 0 × 429 with calls that arrive and answer late, every message once", async () => {
    const { platform, store, runtime } = await start(
      [
        { scope: "global", limit: 10, intervalMs: WINDOW_MS },
        { scope: "chat", limit: 4, intervalMs: WINDOW_MS },
      ],
      [
        { scope: "account", limit: 10, intervalMs: WINDOW_MS },
        { scope: "chat", limit: 4, intervalMs: WINDOW_MS },
      ],
    );
    const N = 60;
    await store.enqueueIntents(
      Array.from({ length: N }, (_, i) =>
        newIntent(outboundMessage(`m${i}`, { target: { id: `c${i % 3}` } })),
      ),
    );
    runtime.worker.kick();
    await until(async () => (await store.countIntents()).sent === N);
    expect(platform.rateLimited).toBe(0);
    const texts = platform.visible().map((m) => m.text);
    expect(texts).toHaveLength(N);
    expect(new Set(texts).size).toBe(N);
    // The limits bound it: at least 6 windows of 10 (first to last call ≥ 5 windows).
    const ok = platform.calls.filter((c) => c.op === "send" && c.outcome === "ok");
    expect((ok.at(-1)?.at ?? 0) - (ok[0]?.at ?? 0)).toBeGreaterThanOrEqual(5 * WINDOW_MS);
  });

  it("live previews and edits: 0 × 429 with calls that arrive and answer late", async () => {
    const editRate = { limit: 3, intervalMs: WINDOW_MS };
    const { platform, runtime } = await start(
      [
        { scope: "chat", limit: 3, intervalMs: WINDOW_MS, ops: ["edit"] },
        { scope: "chat", limit: 2, intervalMs: WINDOW_MS, ops: ["send"] },
      ],
      [
        { scope: "chat", limit: 3, intervalMs: WINDOW_MS, operations: ["edit"] },
        { scope: "chat", limit: 2, intervalMs: WINDOW_MS, operations: ["send"] },
      ],
      editRate,
    );
    const target = {
      channel: "qa",
      accountId: "bot-1",
      target: { kind: "direct" as const, id: "d" },
    };
    const sessions = await Promise.all(
      [0, 1].map((k) => runtime.live(target, { idempotencyKey: `reply:margins:${k}` })),
    );
    const until1s = Date.now() + 1_200;
    for (let i = 0; Date.now() < until1s; i++) {
      for (const [k, live] of sessions.entries())
        live.update(`session ${k} says ${"word ".repeat(i)}`);
      await sleep(3);
    }
    await Promise.all(sessions.map((live, k) => live.finalize(`session ${k} done`)));
    expect(platform.rateLimited).toBe(0);
    const edits = platform.calls.filter((c) => c.op === "edit" && c.outcome === "ok");
    // Held to 3 per window of 200 ms over ~1.2 s, not starved.
    expect(edits.length).toBeGreaterThanOrEqual(8);
    expect(
      platform
        .visible("d")
        .map((m) => m.text)
        .sort(),
    ).toEqual(["session 0 done", "session 1 done"]);
  });
});
