/**
 * Test harness for delivery tests: a runtime over an in-memory SQLite store, a fake platform and
 * a controllable clock.
 *
 * @module
 */

import type { ChannelMessageAdapter } from "../../adapter/types.ts";
import type { HeraldLogger } from "../../logger.ts";
import { createMessageRuntime, type MessageRuntime } from "../../runtime.ts";
import { SqliteStateStore } from "../../state/sqlite/SqliteStateStore.ts";
import {
  createFakeAdapter,
  type FakeAdapterOptions,
  inProcessTransport,
} from "../../testing/fakeAdapter.ts";
import { FakePlatform, type FakePlatformOptions } from "../../testing/fakePlatform.ts";
import { scaledMs } from "../../testing/timeScale.ts";
import type { DeliveryOptions } from "../deps.ts";

/** A clock tests move by hand; starts at the real time. */
export function manualClock() {
  let now = Date.now();
  const clock = () => now;
  return Object.assign(clock, {
    advance(ms: number) {
      now += ms;
    },
  });
}

export type Harness = {
  runtime: MessageRuntime;
  platform: FakePlatform;
  store: SqliteStateStore;
  clock: ReturnType<typeof manualClock>;
  /**
   * Moves the manual clock forward by `stepMs` every few real milliseconds (kicking the worker)
   * until `work` settles, so backoff, retry-after and settle delays elapse without real waiting.
   * @returns what `work` resolves to.
   */
  drive<T>(work: Promise<T>, stepMs?: number): Promise<T>;
  close(): Promise<void>;
};

/** Builds and starts a runtime over a fake platform. */
export async function deliveryHarness(
  opts: {
    adapter?: Omit<FakeAdapterOptions, "transport">;
    platform?: FakePlatformOptions;
    delivery?: DeliveryOptions;
    path?: string;
    /** Use the real clock (for tests where backoff must elapse by itself). */
    realClock?: boolean;
    /** Changes the fake adapter before the runtime gets it (add hooks, wrap methods). */
    wrap?: (adapter: ChannelMessageAdapter) => ChannelMessageAdapter;
    logger?: HeraldLogger;
  } = {},
): Promise<Harness> {
  const manual = manualClock();
  const clock = opts.realClock ? Object.assign(() => Date.now(), { advance() {} }) : manual;
  const platform = new FakePlatform({ clock, ...opts.platform });
  const store = new SqliteStateStore({ path: opts.path ?? ":memory:", clock });
  const runtime = createMessageRuntime({
    store,
    adapters: [
      (opts.wrap ?? ((a) => a))(
        createFakeAdapter({ ...opts.adapter, transport: inProcessTransport(platform) }),
      ),
    ],
    ...(opts.logger ? { logger: opts.logger } : {}),
    clock,
    random: () => 0.5,
    delivery: {
      pollIntervalMs: 5,
      leaseMs: 10_000,
      backoff: { baseMs: 100, maxMs: 1_000 },
      ...opts.delivery,
    },
  });
  await runtime.start();
  return {
    runtime,
    platform,
    store,
    clock,
    async drive(work, stepMs = 250) {
      let done = false;
      const settled = work.finally(() => {
        done = true;
      });
      settled.catch(() => {});
      while (!done) {
        await new Promise((r) => setTimeout(r, 2));
        if (done) break;
        clock.advance(stepMs);
        runtime.worker.kick();
      }
      return settled;
    },
    async close() {
      await runtime.stop(1_000);
      await store.close();
    },
  };
}

/**
 * Waits (real time) until `predicate` holds, polling every 5 ms; gives up after `idleMs` times
 * the suite's time scale (`HERALD_TEST_TIME_SCALE`).
 */
export async function eventually<T>(
  read: () => Promise<T> | T,
  predicate: (v: T) => boolean,
  idleMs = 5_000,
): Promise<T> {
  const timeoutMs = scaledMs(idleMs);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (predicate(v)) return v;
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
