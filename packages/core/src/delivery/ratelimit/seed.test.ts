/**
 * The restart seed (`seed.ts`) under a skewed clock and past one page of intents.
 */
import { describe, expect, it } from "vitest";
import { SqliteStateStore } from "../../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../../testing/fakeAdapter.ts";
import { FakePlatform } from "../../testing/fakePlatform.ts";
import { outboundMessage } from "../../testing/fixtures.ts";
import { RateLimitScheduler } from "../RateLimitScheduler.ts";
import { callOf } from "./intent.ts";
import { SEED_PAGE, seedRateLimits } from "./seed.ts";

const perChat = { scope: "chat" as const, limit: 1, intervalMs: 2_000 };
const adapter = createFakeAdapter({
  rateLimits: [perChat],
  transport: inProcessTransport(new FakePlatform()),
});

/** Enqueues `targets` (one intent each) and moves them to `sending` (a call was made). */
async function sendingIntents(store: SqliteStateStore, targets: string[], now: number) {
  const enqueued = await store.enqueueIntents(
    targets.map((id, i) => ({
      idempotencyKey: `k${i}`,
      message: outboundMessage(`m${i}`, { target: { id } }),
    })),
  );
  await store.leaseDueIntents({ owner: "w", now, leaseMs: 60_000, limit: targets.length });
  await store.transitionIntents(
    enqueued.map((r) => ({ id: r.intent.id, owner: "w", from: "pending", to: "sending" })),
  );
  return enqueued.map((r) => r.intent);
}

describe("restart seed", () => {
  it("a row written by a process whose clock ran 10 minutes ahead does not hold the chat for 10 minutes", async () => {
    const now = Date.now();
    const ahead = 10 * 60_000;
    // The predecessor's clock was ahead: its rows carry future updatedAt.
    const store = new SqliteStateStore({ path: ":memory:", clock: () => Date.now() + ahead });
    const [intent] = await sendingIntents(store, ["c1"], now);
    const scheduler = new RateLimitScheduler();
    await seedRateLimits({ store, scheduler, clock: () => now, adapterFor: () => adapter }, [
      adapter,
    ]);
    const call = callOf(adapter, intent as never);
    // Whatever the skew, a call counted by the seed cannot hold its bucket past one window
    // from now.
    expect(scheduler.peek([perChat], call, now + perChat.intervalMs + 5)).toBe(0);
    await store.close();
  });

  it("past one page (SEED_PAGE) in the window, the newest calls are counted too", async () => {
    const now = Date.now();
    const store = new SqliteStateStore({ path: ":memory:" });
    // SEED_PAGE calls in other chats, then the newest one, in chat "last".
    const targets = Array.from({ length: SEED_PAGE }, (_, i) => `busy${i}`);
    await sendingIntents(store, targets, now);
    const [last] = await store.enqueueIntents([
      { idempotencyKey: "last", message: outboundMessage("last", { target: { id: "last" } }) },
    ]);
    await store.leaseDueIntents({ owner: "w", now, leaseMs: 60_000, limit: 1 });
    await store.transitionIntents([
      { id: last?.intent.id ?? "", owner: "w", from: "pending", to: "sending" },
    ]);
    const scheduler = new RateLimitScheduler();
    await seedRateLimits({ store, scheduler, clock: Date.now, adapterFor: () => adapter }, [
      adapter,
    ]);
    const call = callOf(adapter, last?.intent as never);
    // The call made last (its token frees last) must be known to the restarted process.
    expect(scheduler.peek([perChat], call, Date.now())).toBeGreaterThan(0);
    await store.close();
  });
});
