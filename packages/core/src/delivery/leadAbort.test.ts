/**
 * A call taken with a lead (`acquire`'s `leadMs`) waits out its stamp even when the worker is
 * stopped while it does: after `sending` the call goes out either way, so it must not go early
 * (against a strict fake platform, an early call is a 429).
 */
import { afterEach, expect, it } from "vitest";
import { createMessageRuntime } from "../runtime.ts";
import { sleep } from "../sleep.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { newIntent, outboundMessage } from "../testing/fixtures.ts";
import { scaledMs } from "../testing/timeScale.ts";

const WINDOW_MS = 300;
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

it("a stop during the lead wait does not start the call before its token is back", async () => {
  const platform = new FakePlatform({
    limits: [{ scope: "chat", limit: 1, intervalMs: WINDOW_MS }],
  });
  const store = new SqliteStateStore({ path: ":memory:" });
  const runtime = createMessageRuntime({
    store,
    adapters: [
      createFakeAdapter({
        transport: async (call) => platform.call(call),
        rateLimits: [{ scope: "chat", limit: 1, intervalMs: WINDOW_MS }],
      }),
    ],
    delivery: { pollIntervalMs: 5, maxInMemoryWaitMs: 2_000 },
  });
  let stopped: Promise<void> | undefined;
  let sendingWrites = 0;
  const transition = store.transitionIntents.bind(store);
  store.transitionIntents = async (transitions) => {
    const toSending = transitions.some((t) => t.to === "sending");
    if (toSending) sendingWrites += 1;
    // The first `sending` write is slow: the next attempt takes its tokens with a ~22 ms lead.
    if (toSending && sendingWrites === 1) await sleep(22);
    const out = await transition(transitions);
    // The second one is quick, and the runtime is stopped right after it (no drain time).
    if (toSending && sendingWrites === 2) stopped = runtime.stop(0);
    return out;
  };
  await runtime.start();
  cleanup = async () => {
    await (stopped ?? runtime.stop(0));
    await store.close();
  };
  await store.enqueueIntents([newIntent(outboundMessage("one", { target: { id: "c" } }))]);
  runtime.worker.kick();
  const deadline = Date.now() + scaledMs(5_000);
  while ((await store.countIntents()).sent < 1 && Date.now() < deadline) await sleep(5);
  await store.enqueueIntents([newIntent(outboundMessage("two", { target: { id: "c" } }))]);
  runtime.worker.kick();
  while (platform.calls.length < 2 && Date.now() < deadline) await sleep(5);
  await stopped;
  expect(sendingWrites).toBe(2);
  expect(platform.calls.map((c) => c.outcome)).toEqual(["ok", "ok"]);
  expect(platform.rateLimited).toBe(0);
});
