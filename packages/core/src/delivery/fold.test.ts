/**
 * [H19] the folded first attempt of `runtime.send` (`fold.ts`): two commits per message on every
 * channel, also where an unknown send is held for an operator (the three steps only where the
 * fold cannot happen: a backlog, group commit off, a typing indicator to stop first); dedup,
 * per-chat order and rate-limit tokens unchanged.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChannelMessage } from "../message/message.ts";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { openSqliteStateStore } from "../state/sqlite/worker/SqliteWorkerStore.ts";
import {
  createFakeAdapter,
  type FakeAdapterOptions,
  type FakeTransport,
  inProcessTransport,
} from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { DeliveryPendingError } from "./errors.ts";

let runtime: MessageRuntime | undefined;
let store: SqliteStateStore | undefined;
/** Stops the runtime and closes the store of the last {@link start} (between runs of a loop). */
async function closeAll() {
  await runtime?.stop(200).catch(() => {});
  await store?.close();
  runtime = undefined;
  store = undefined;
}
afterEach(closeAll);

/** A hold channel (no key, no reconciler, like Telegram) and a keyed one. */
const CHANNELS = [
  ["hold", {}],
  ["keyed", { idempotent: true }],
] as const;

async function start(
  options: Omit<FakeAdapterOptions, "transport"> = {},
  transport?: (platform: FakePlatform) => FakeTransport,
) {
  const platform = new FakePlatform({ idempotent: options.idempotent === true });
  // No time budget on a group commit: on a busy machine a preempted group would run past its
  // 2-4 ms budget and split in two; what is counted here is how the writes are grouped.
  store = new SqliteStateStore({ path: ":memory:", groupCommit: { maxGroupMs: 60_000 } });
  runtime = createMessageRuntime({
    store,
    adapters: [
      createFakeAdapter({
        transport: transport?.(platform) ?? inProcessTransport(platform),
        ...options,
      }),
    ],
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
  it("commits twice per send on every channel, whatever it does with an unknown send", async () => {
    for (const options of [
      {}, // no key, no reconciler: an unknown send is held for an operator (Telegram)
      { idempotent: true }, // native keys that never expire
      { idempotent: true, idempotencyWindowMs: 60_000 }, // a key that expires
      { reconcile: true }, // a complete lookup
      { reconcile: "best_effort" as const }, // a lookup that proves nothing
      { unknownSendPolicy: "at_least_once" as const }, // a replay may duplicate
    ]) {
      expect(await commitsPerSend(options)).toBe(2);
      await closeAll();
    }
  });

  it("is tried on the SQLite store in-thread and in its worker thread, not with group commit off (a hold channel)", async () => {
    for (const [groupCommit, thread] of [
      [{}, "main"],
      [{}, "worker"],
      [false, "main"],
    ] as const) {
      const platform = new FakePlatform();
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
        adapters: [createFakeAdapter({ transport: inProcessTransport(platform) })],
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

  it.each(CHANNELS)(
    "%s: the same idempotency key sent twice at once is one intent and one message",
    async (_, options) => {
      const h = await start(options);
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
    },
  );

  it.each(CHANNELS)(
    "%s: behind a backlog in its chat: enqueued `pending` (never `sending`), order kept, its rate-limit token given back",
    async (_, options) => {
      const h = await start({
        ...options,
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
      const second = (await h.store.listIntents()).find(
        (i) => i.message.body?.markdown === "second",
      );
      expect(second).toMatchObject({ status: "pending", attempt: 0 });
      // The one token of the minute was taken for the fold and given back: another chat sends now.
      const other = await h.runtime.send(outboundMessage("other", { target: { id: "c2" } }), {
        waitMs: 1_000,
      });
      expect(other.platformMessageIds).toHaveLength(1);
      expect(h.platform.visible().map((m) => m.text)).toEqual(["other"]);
    },
  );

  describe("a turn's typing in the chat of the send (a hold channel)", () => {
    const inbound: ChannelMessage = {
      id: "in-1",
      channel: "qa",
      accountId: "bot-1",
      direction: "inbound",
      target: { kind: "group", id: "c1" },
      sender: { id: "user-1" },
      body: { markdown: "question" },
    };
    const chat = {
      channel: "qa",
      accountId: "bot-1",
      target: { kind: "group", id: "c1" },
    } as const;

    /** Typing calls that show the indicator hang until `release` (the adapter ignores the abort). */
    function heldTyping() {
      let release = () => {};
      const released = new Promise<void>((r) => {
        release = r;
      });
      const transport = (platform: FakePlatform): FakeTransport => {
        const direct = inProcessTransport(platform);
        return async (call) => {
          if (call.op === "send") release();
          if (call.op === "typing" && call.on) await released;
          return direct(call);
        };
      };
      return { transport, release: () => release() };
    }

    it("opened while the send is being folded: not folded — `pending` while the typing stops, then sent", async () => {
      const typing = heldTyping();
      const h = await start({ live: { typing: true } }, typing.transport);
      const turn = h.runtime.turn(inbound, async () => {
        const sent = h.runtime.send(outboundMessage("answer", { target: { id: "c1" } }));
        h.runtime.typing(chat); // the send has started: its fold is under way
        return sent;
      });
      let rows = await h.store.listIntents();
      for (let i = 0; rows.length === 0 && i < 200; i++) {
        await new Promise((r) => setTimeout(r, 5));
        rows = await h.store.listIntents();
      }
      // Waiting for the typing call to settle, the message is `pending`, not "about to be sent".
      expect(rows).toMatchObject([{ status: "pending", attempt: 0 }]);
      expect(h.platform.visible()).toEqual([]);
      typing.release();
      expect((await turn).platformMessageIds).toHaveLength(1);
      expect(await h.store.listIntents()).toMatchObject([{ status: "sent", attempt: 1 }]);
      expect(h.platform.visible().map((m) => m.text)).toEqual(["answer"]);
    });

    it("opened during the folded commit: the `sending` message is not held back for it (sent first, the typing stopped after)", async () => {
      // The typing call in flight settles only once the message was sent: waited for, it would
      // hold the `sending` row until the stop's grace ran out, and hide the typing first.
      const typing = heldTyping();
      const h = await start({ live: { typing: true } }, typing.transport);
      const s = h.store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      const transition = s.transitionIntents?.bind(h.store) as (
        ...a: unknown[]
      ) => Promise<unknown>;
      let opened = false;
      s.transitionIntents = (...args) => {
        const written = transition(...args);
        const [first] = args[0] as { from: string; to: string }[];
        if (!opened && first?.from === "pending" && first.to === "sending") {
          opened = true;
          h.runtime.typing(chat); // issued with the folded writes, before their commit
        }
        return written;
      };
      const receipt = await h.runtime.turn(inbound, () =>
        h.runtime.send(outboundMessage("answer", { target: { id: "c1" } })),
      );
      expect(opened).toBe(true);
      expect(receipt.platformMessageIds).toHaveLength(1);
      expect(await h.store.listIntents()).toMatchObject([{ status: "sent", attempt: 1 }]);
      const ops = h.platform.calls.map((c) => (c.op === "typing" ? `typing:${c.on}` : c.op));
      expect(ops.indexOf("send")).toBeGreaterThanOrEqual(0);
      expect(ops.indexOf("send")).toBeLessThan(ops.indexOf("typing:false"));
    });
  });
});
