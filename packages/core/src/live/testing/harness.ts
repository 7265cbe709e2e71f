/**
 * Harness of the live tests: a runtime on in-memory SQLite, a fake platform and its adapter
 * (with live options), all on manual time.
 *
 * @module
 */

import type { ChannelMessageAdapter } from "../../adapter/types.ts";
import type { DeliveryOptions } from "../../delivery/deps.ts";
import { createMessageRuntime, type MessageRuntime } from "../../runtime.ts";
import { SqliteStateStore } from "../../state/sqlite/SqliteStateStore.ts";
import {
  createFakeAdapter,
  type FakeAdapterOptions,
  inProcessTransport,
} from "../../testing/fakeAdapter.ts";
import { FakePlatform, type FakePlatformOptions } from "../../testing/fakePlatform.ts";
import type { LiveRuntimeOptions, LiveTarget } from "../types.ts";
import { type ManualTime, manualTime } from "./manualTime.ts";

export type LiveHarness = {
  runtime: MessageRuntime;
  platform: FakePlatform;
  store: SqliteStateStore;
  time: ManualTime;
  /** A direct-chat target on the fake channel. */
  target: LiveTarget;
  /** Texts of the visible messages of the chat, in order. */
  visible(): string[];
  /**
   * Moves time in `stepMs` steps (kicking the worker, letting real-time work settle) until
   * `promise` settles or `maxMs` of manual time passed.
   */
  drive<T>(promise: Promise<T>, stepMs?: number, maxMs?: number): Promise<T>;
  close(): Promise<void>;
};

/** Default live options of the harness adapter: 1 edit per second per chat, typing. */
export const TELEGRAM_LIKE: NonNullable<FakeAdapterOptions["live"]> = {
  editRate: { limit: 1, intervalMs: 1_000 },
};

/** Builds and starts a runtime over a fake platform on manual time. */
export async function liveHarness(
  opts: {
    adapter?: Omit<FakeAdapterOptions, "transport">;
    platform?: FakePlatformOptions;
    path?: string;
    /** Changes the adapter (say, a reconciler that reads payloads like a real one). */
    wrap?: (
      adapter: ChannelMessageAdapter,
      platform: FakePlatform,
      time: ManualTime,
    ) => ChannelMessageAdapter;
    /** Extra live runtime options (hooks). */
    live?: Omit<LiveRuntimeOptions, "timers" | "recoveryIntervalMs">;
    /** Delivery options over the harness defaults. */
    delivery?: DeliveryOptions;
  } = {},
): Promise<LiveHarness> {
  const time = manualTime();
  const platform = new FakePlatform({ clock: time.now, ...opts.platform });
  const store = new SqliteStateStore({ path: opts.path ?? ":memory:", clock: time.now });
  const adapter = createFakeAdapter({
    live: TELEGRAM_LIKE,
    ...opts.adapter,
    transport: inProcessTransport(platform),
  });
  const runtime = createMessageRuntime({
    store,
    adapters: [opts.wrap ? opts.wrap(adapter, platform, time) : adapter],
    clock: time.now,
    random: () => 0.5,
    delivery: {
      pollIntervalMs: 5,
      leaseMs: 10_000,
      backoff: { baseMs: 100, maxMs: 1_000 },
      ...opts.delivery,
    },
    live: { ...opts.live, timers: time.timers, recoveryIntervalMs: 0 },
  });
  await runtime.start();
  const target: LiveTarget = {
    channel: "qa",
    accountId: "bot-1",
    target: { kind: "direct", id: "dm-1" },
  };
  return {
    runtime,
    platform,
    store,
    time,
    target,
    visible: () => platform.visible("dm-1").map((m) => m.text),
    async drive(promise, stepMs = 100, maxMs = 20_000) {
      let settled = false;
      const watched = promise.finally(() => {
        settled = true;
      });
      watched.catch(() => {});
      for (let t = 0; !settled && t < maxMs; t += stepMs) {
        await new Promise((r) => setTimeout(r, 2));
        if (settled) break;
        await time.advance(stepMs);
        runtime.worker.kick();
      }
      return watched;
    },
    async close() {
      await runtime.stop(1_000);
      await store.close();
    },
  };
}
