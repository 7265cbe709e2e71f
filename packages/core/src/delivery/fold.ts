/**
 * The folded first attempt of `runtime.send` ([H19], DESIGN §4): a send this process will
 * attempt right now is inserted already leased and in `sending`, in the same transaction as its
 * enqueue, so one message costs two commits (enqueue + `sending`, then `committing` + `sent`)
 * instead of three — on every channel, whatever it does with an unknown send.
 *
 * The fold is only tried when the attempt starts at once, and everything that decides it runs
 * before the commit: a delivery slot is free (taken), the message renders, its first call is not
 * paused and its rate-limit tokens are there (taken, without waiting). Those are the steps the
 * three-step attempt (`runAttempt`) runs between its enqueue commit and its `sending` write
 * (slot wait, render, token wait); a fresh send has no earlier failure, so `runAttempt`'s stale
 * key check has nothing to say. After the folded commit the code up to the platform call is the
 * code after the three-step `sending` commit (`dispatchSending`): `onDurable` is synchronous, and
 * nothing waits for the turn's typing. A send whose turn has a typing indicator open in that chat
 * is not folded, asked before the fold and again right before the writes
 * ({@link FoldRequest.waitsFirst}); one opened during the commit itself is stopped without being
 * waited for (`SendRuntime`), where the three-step path would have waited for it in `pending`.
 *
 * So folding costs no safety, also on a channel that holds unknown sends for an operator
 * (Telegram: no idempotency key, no reconciler):
 * - a SIGKILL after the folded commit and before the platform call leaves a `sending` row that
 *   recovery turns into `unknown_after_send`, as a SIGKILL after the three-step `sending` commit
 *   does, and that window is as long in both paths (not longer: the fold takes its tokens
 *   without a lead, so no sleep comes before the call). What the fold removes is only the commit
 *   that made `pending` durable on its own, for the time of one more commit;
 * - a SIGKILL before the folded commit wrote nothing, and `runtime.send` had not returned nor
 *   called `onDurable`: nothing was promised, as with a crash before the three-step enqueue
 *   commit.
 *
 * The enqueue claims the intent only when nothing unsent is ahead of it in its ordering key;
 * when it does not (a backlog, or the idempotency key already exists) the `sending` write is
 * refused in its own savepoint, the enqueue stands as an ordinary one, and the tokens and the
 * slot are given back. Not folded at all: edits and deletes (`SendRuntime`), rate-limit buckets
 * shared in the store (their tokens are store rows), and stores whose writes of one tick do not
 * commit together.
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

/** What `runtime.send` asks to fold. */
export type FoldRequest = {
  idempotencyKey: string;
  message: ChannelMessage;
  batch?: RenderedMessageBatch | undefined;
  turnId?: string | undefined;
  /** The intent's `maxAgeMs` (`expiry.ts`); a fresh intent is never expired yet. */
  maxAgeMs?: number | undefined;
  /**
   * True when the send would have to wait for something between its commit and its platform
   * call (the turn's typing indicator in that chat, stopped first): no fold then. Asked before
   * anything is taken and again right before the writes are issued (the render and the token
   * check may have let other code of the turn run).
   */
  waitsFirst?: (() => boolean) | undefined;
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
  if (deps.scheduler.shared || !deps.store.groupsWritesPerTick || request.waitsFirst?.()) {
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
    if (request.waitsFirst?.()) {
      refund();
      return undefined;
    }
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
        ...(request.maxAgeMs !== undefined ? { maxAgeMs: request.maxAgeMs } : {}),
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
