/**
 * [H19] the folded first attempt of `runtime.send` (`fold.ts`): two commits per message on
 * channels whose unknown sends are resolved without an operator, three (the enqueue committed
 * `pending` first) everywhere else; dedup, per-chat order and rate-limit tokens unchanged.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { openSqliteStateStore } from "../state/sqlite/worker/SqliteWorkerStore.ts";
import {
  createFakeAdapter,
  type FakeAdapterOptions,
  inProcessTransport,
} from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { DeliveryPendingError } from "./errors.ts";

let runtime: MessageRuntime | undefined;
let store: SqliteStateStore | undefined;
afterEach(async () => {
  await runtime?.stop(200).catch(() => {});
  await store?.close();
  runtime = undefined;
  store = undefined;
});

async function start(options: Omit<FakeAdapterOptions, "transport"> = {}) {
  const platform = new FakePlatform({ idempotent: options.idempotent === true });
  store = new SqliteStateStore({ path: ":memory:" });
  runtime = createMessageRuntime({
    store,
    adapters: [createFakeAdapter({ transport: inProcessTransport(platform), ...options })],
    delivery: { pollIntervalMs: 5, leaseMs: 10_000 },
  });
  await runtime.start();
  return { platform, store, runtime };
}

/**
 * Transactions that carried the intent writes of one `runtime.send` of a fresh message: the
 * group commits its `enqueueIntents` / `transitionIntents` / `updateIntent` calls resolved in
 * (the worker loop's own lease writes, in groups of their own, are not counted).
 */
async function commitsPerSend(options: Omit<FakeAdapterOptions, "transport">) {
  const h = await start(options);
  await h.runtime.send(outboundMessage("warm-up", { target: { id: "c0" } }));
  const groups = new Set<number>();
  const s = h.store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const method of ["enqueueIntents", "transitionIntents", "updateIntent"]) {
    const original = s[method]?.bind(h.store) as (...args: unknown[]) => Promise<unknown>;
    s[method] = async (...args) => {
      const value = await original(...args);
      groups.add(h.store.groupCommitStats.groups); // counted before members resolve
      return value;
    };
  }
  const receipt = await h.runtime.send(outboundMessage("hello", { target: { id: "c1" } }));
  const commits = groups.size;
  expect(receipt.platformMessageIds).toHaveLength(1);
  const [intent] = await h.store.listIntents({ statuses: ["sent"], afterSeq: 1 });
  expect(intent).toMatchObject({ status: "sent", attempt: 1 });
  expect(h.platform.visible().map((m) => m.text)).toEqual(["warm-up", "hello"]);
  return commits;
}

describe("folded first attempt", () => {
  it("commits twice per send with native keys that never expire, or a complete reconciler", async () => {
    expect(await commitsPerSend({ idempotent: true })).toBe(2);
    await runtime?.stop();
    await store?.close();
    runtime = undefined;
    expect(await commitsPerSend({ reconcile: true })).toBe(2);
  });

  it("keeps the three steps where a crash in `sending` would hold or could duplicate", async () => {
    for (const options of [
      {}, // no key, no reconciler: unknown sends are held (Telegram)
      { idempotent: true, idempotencyWindowMs: 60_000 }, // a key that expires
      { reconcile: "best_effort" as const }, // a lookup that proves nothing
      { unknownSendPolicy: "at_least_once" as const }, // a replay may duplicate
    ]) {
      expect(await commitsPerSend(options)).toBe(3);
      await runtime?.stop();
      await store?.close();
      runtime = undefined;
      store = undefined;
    }
  });

  it("is tried on the SQLite store in-thread and in its worker thread, not with group commit off", async () => {
    for (const [groupCommit, thread] of [
      [{}, "main"],
      [{}, "worker"],
      [false, "main"],
    ] as const) {
      const platform = new FakePlatform({ idempotent: true });
      const options = { path: ":memory:", groupCommit };
      const opened =
        thread === "worker" ? await openSqliteStateStore(options) : new SqliteStateStore(options);
      const events: string[] = [];
      const s = opened as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      for (const method of ["enqueueIntents", "transitionIntents"]) {
        const original = s[method]?.bind(opened) as (...args: unknown[]) => Promise<unknown>;
        s[method] = (...args) => {
          events.push(`${method}:called`);
          return original(...args).finally(() => events.push(`${method}:settled`));
        };
      }
      runtime = createMessageRuntime({
        store: opened,
        adapters: [
          createFakeAdapter({ transport: inProcessTransport(platform), idempotent: true }),
        ],
        delivery: { pollIntervalMs: 5 },
      });
      await runtime.start();
      await runtime.send(outboundMessage("hello", { target: { id: "c1" } }));
      // Folded: `sending` is asked for before the enqueue settled; else only after it.
      expect(events.slice(0, 2)).toEqual(
        groupCommit === false
          ? ["enqueueIntents:called", "enqueueIntents:settled"]
          : ["enqueueIntents:called", "transitionIntents:called"],
      );
      expect(await opened.listIntents()).toMatchObject([{ status: "sent", attempt: 1 }]);
      expect(platform.visible().map((m) => m.text)).toEqual(["hello"]);
      await runtime.stop();
      await opened.close();
      runtime = undefined;
    }
  });

  it("the same idempotency key sent twice at once is one intent and one message", async () => {
    const h = await start({ idempotent: true });
    const message = outboundMessage("once", { target: { id: "c1" } });
    const [a, b] = await Promise.all([
      h.runtime.send(message, { idempotencyKey: "k" }),
      h.runtime.send(message, { idempotencyKey: "k" }),
    ]);
    expect(a).toEqual(b);
    const again = await h.runtime.send(message, { idempotencyKey: "k" });
    expect(again).toEqual(a);
    expect(await h.store.listIntents()).toHaveLength(1);
    expect(h.platform.visible().map((m) => m.text)).toEqual(["once"]);
  });

  it("behind a backlog in its chat: enqueued `pending` (never `sending`), order kept, its rate-limit token given back", async () => {
    const h = await start({
      idempotent: true,
      rateLimits: [{ scope: "account", limit: 1, intervalMs: 60_000 }],
    });
    // An earlier message of chat c1, not due yet: everything of c1 waits behind it.
    await h.store.enqueueIntents([
      {
        idempotencyKey: "first",
        message: outboundMessage("first", { target: { id: "c1" } }),
        nextAttemptAt: Date.now() + 60_000,
      },
    ]);
    const behind = h.runtime.send(outboundMessage("second", { target: { id: "c1" } }), {
      waitMs: 100,
    });
    await expect(behind).rejects.toBeInstanceOf(DeliveryPendingError);
    const second = (await h.store.listIntents()).find((i) => i.message.body?.markdown === "second");
    expect(second).toMatchObject({ status: "pending", attempt: 0 });
    // The one token of the minute was taken for the fold and given back: another chat sends now.
    const other = await h.runtime.send(outboundMessage("other", { target: { id: "c2" } }), {
      waitMs: 1_000,
    });
    expect(other.platformMessageIds).toHaveLength(1);
    expect(h.platform.visible().map((m) => m.text)).toEqual(["other"]);
  });
});
