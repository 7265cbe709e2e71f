/**
 * The folded first attempt of `runtime.send` ([H19], DESIGN §4): a send this process will
 * attempt right now is inserted already leased and in `sending`, in the same transaction as its
 * enqueue, so one message costs two commits (enqueue + `sending`, then `committing` + `sent`)
 * instead of three.
 *
 * Folding moves one crash window: a process killed after that commit and before its platform
 * call leaves a `sending` row for a message that was never sent, which recovery turns into
 * `unknown_after_send`. That is only allowed where an unknown send is resolved without an
 * operator and without a duplicate ({@link foldable}): a native idempotency key that never
 * expires (the replay is deduplicated by the platform), or a reconciler whose `not_sent` is
 * `complete` (the lookup proves it absent, then it is sent). Everywhere else — Telegram without
 * a key, keys with a window, best-effort lookups, `at_least_once` — the three steps stay, so a
 * crash before the call leaves `pending` (sent normally after a restart), never "maybe sent".
 *
 * And the fold is only tried when the attempt can start at once, everything checked before the
 * commit: a delivery slot is free (taken), the message renders, its first call is not paused and
 * its rate-limit tokens are there (taken; not with buckets shared in the store). The enqueue
 * claims the intent only when nothing unsent is ahead of it in its ordering key; when it does not
 * (a backlog, or the idempotency key already exists) the `sending` write is refused in its own
 * savepoint, the enqueue stands as an ordinary one, and the tokens and the slot are given back.
 *
 * The two writes are issued in the same tick without waiting between them: the SQLite store's
 * group commit (in-thread or in its worker thread) runs them in one transaction, in call order.
 * Only stores that say so (`MessageStateStore.groupsWritesPerTick`) get the fold; on the others
 * (group commit off, PostgreSQL, whose enqueue statement is batched apart from transitions) it
 * would save nothing, so every send there takes the three steps.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import type { ChannelMessageAdapter } from "../adapter/types.ts";
import { failpoint } from "../failpoint.ts";
import type { RenderedMessageBatch } from "../message/batch.ts";
import { type DurableSendIntent, orderingKeyOf } from "../message/intent.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { EnqueueResult } from "../state/types.ts";
import { firstCallOf, firstDispatchStamp, renderBatch, type SendingAttempt } from "./attempt.ts";
import type { DeliveryDeps } from "./deps.ts";
import { reconcileDeclaration } from "./gate.ts";

/**
 * True when a fresh send on `adapter` left in `sending` by a crash is delivered exactly once
 * after a restart, with no operator: native idempotency keys without a window, or a reconciler
 * whose `not_sent` is `complete`.
 */
export function foldable(adapter: ChannelMessageAdapter): boolean {
  const delivery = adapter.capabilities.delivery ?? {};
  if (delivery.idempotencyKey === true && delivery.idempotencyWindowMs === undefined) return true;
  return (
    adapter.send.reconcileUnknownSend !== undefined &&
    reconcileDeclaration(adapter).notSent === "complete"
  );
}

/** What `runtime.send` asks to fold. */
export type FoldRequest = {
  idempotencyKey: string;
  message: ChannelMessage;
  batch?: RenderedMessageBatch | undefined;
  turnId?: string | undefined;
};

/**
 * The outcome of {@link beginFolded}: `started` when the intent was committed in `sending`
 * (hand it to `DeliveryWorker.deliverSending`, which releases the slot); otherwise `result` is
 * an ordinary enqueue (created and claimed, created behind a backlog, or an existing intent).
 */
export type FoldOutcome =
  | { started: SendingAttempt; result?: undefined }
  | { started?: undefined; result: EnqueueResult };

/**
 * Enqueues a send and, when it can start now, writes it in `sending` in the same commit.
 *
 * @returns undefined when the fold was not tried (nothing written: use the ordinary enqueue).
 * @throws the enqueue's error (a store failure; nothing written, nothing taken).
 */
export async function beginFolded(
  deps: DeliveryDeps,
  adapter: ChannelMessageAdapter,
  request: FoldRequest,
): Promise<FoldOutcome | undefined> {
  if (!foldable(adapter) || deps.scheduler.shared || !deps.store.groupsWritesPerTick) {
    return undefined;
  }
  if (!deps.slots.tryAcquire()) return undefined;
  let slotHeld = true;
  const releaseSlot = () => {
    if (slotHeld) deps.slots.release();
    slotHeld = false;
  };
  try {
    const { message, idempotencyKey } = request;
    const now = deps.clock();
    const draft: DurableSendIntent = {
      id: randomUUID(),
      idempotencyKey,
      channel: message.channel,
      message,
      operation: { kind: "send" },
      orderingKey: orderingKeyOf(message),
      seq: 0,
      status: "pending",
      attempt: 0,
      createdAt: now,
      updatedAt: now,
      ...(message.accountId !== undefined ? { accountId: message.accountId } : {}),
    };
    let batch: RenderedMessageBatch;
    try {
      batch = request.batch ?? (await renderBatch(adapter, draft));
    } catch {
      return undefined; // the ordinary path renders again and records the failure
    }
    const scopes = adapter.capabilities.rateLimits ?? [];
    const call = firstCallOf(adapter, draft, batch);
    let takenAt: number | undefined;
    if (call) {
      if (deps.scheduler.pausedMs(call, deps.clock()) > 0) return undefined;
      const got = await deps.scheduler.tryAcquire(scopes, call);
      if (got.takenAt === undefined) return undefined;
      takenAt = got.takenAt;
    }
    const refund = () => {
      if (call && takenAt !== undefined) deps.scheduler.refund(scopes, call, takenAt);
    };
    const { owner } = deps;
    const stamp = firstDispatchStamp(draft, batch, deps.clock());
    // Both writes in this tick, nothing awaited in between: one group, one transaction.
    const enqueued = deps.store.enqueueIntents([
      {
        id: draft.id,
        idempotencyKey,
        message,
        operation: { kind: "send" },
        batch,
        ...(request.turnId ? { turnId: request.turnId } : {}),
        claim: { owner, now: deps.clock(), leaseMs: deps.options.leaseMs },
      },
    ]);
    const sending = deps.store.transitionIntents([
      {
        id: draft.id,
        from: "pending",
        to: "sending",
        owner,
        patch: {
          attempt: 1,
          batch,
          nextAttemptAt: null,
          ...(stamp ? { firstDispatchAt: stamp } : {}),
        },
      },
    ]);
    const [e, s] = await Promise.allSettled([enqueued, sending]);
    if (e.status === "rejected") {
      refund();
      throw e.reason;
    }
    const [result] = e.value;
    if (!result) throw new Error("store returned no enqueue result");
    if (s.status === "rejected") {
      // Not claimed (a backlog ahead, or the key existed): an ordinary enqueue.
      refund();
      return { result };
    }
    const intent = s.value[0] as DurableSendIntent;
    failpoint("send.after_begin");
    deps.logger
      .child({ intentId: intent.id, channel: intent.channel })
      .info({ status: "sending", attempt: 1, folded: true }, "intent sending");
    failpoint("send.after_sending");
    slotHeld = false; // the worker releases it after the attempt
    return {
      started: {
        intent,
        batch,
        ...(call && takenAt !== undefined ? { firstCall: { call, takenAt } } : {}),
      },
    };
  } finally {
    releaseSlot();
  }
}
