/**
 * Resolving `unknown_after_send` intents (DESIGN §3 "Replay gate"; seed "Send context",
 * "Recovery"): the platform may or may not have the message. In order of preference:
 * 0. an edit whose next unit edits an existing message, or a delete: replay — applying the same
 *    edit again changes nothing ("not modified" is success) and deleting again is "not found";
 * 1. native idempotency (`capabilities.delivery.idempotencyKey`) while every dispatched missing
 *    unit is inside `idempotencyWindowMs` of its `firstDispatchAt`: replay with the same keys —
 *    the platform drops the duplicate;
 * 2. `send.reconcileUnknownSend`, not before the settle delay (request timeout + visibility lag)
 *    after the failed attempt: `sent` → commit; `not_sent` → replay when the reconciler declares
 *    it `complete`, else (`best_effort`) step 3; `unresolved` → check again later (up to
 *    `maxReconcileChecks`), then step 3;
 * 3. `capabilities.delivery.unknownSendPolicy`: `at_least_once` replays (a duplicate may become
 *    visible); `hold` (default) waits for an operator.
 *
 * Every replay passes the replay gate (`decideReplay`): the intent only becomes due after the
 * backoff (or retry-after) of its attempt count, and an intent out of attempts ends `failed` with
 * the reason kept instead of being replayed.
 *
 * @module
 */
import { runSendHook } from "../adapter/hooks.ts";
import type {
  ChannelMessageAdapter,
  MessageSendContext,
  ReconcileResult,
} from "../adapter/types.ts";
import { backoffDelayMs, type DeliveryFailure, decideReplay } from "../message/failure.ts";
import { type DurableSendIntent, HELD_FOR_OPERATOR_AT } from "../message/intent.ts";
import { unitIdempotencyKey } from "../message/keys.ts";
import { deliveredUnitIndexes, mergeReceipts, receiptFromParts } from "../message/receipt.ts";
import { redactWith, renderBatch, runAttempt } from "./attempt.ts";
import type { DeliveryDeps } from "./deps.ts";
import { keyTrusted, reconcileDeclaration, replayIsIdempotent, settleDelayMs } from "./gate.ts";
import { holdReceiptConflict, isReceiptConflict } from "./receiptConflict.ts";
import { hookTimeoutOf } from "./units.ts";

const OUTCOME_UNKNOWN: DeliveryFailure = {
  kind: "unknown",
  evidence: "maybe_sent",
  message: "outcome unknown",
};

/**
 * Replays an `unknown_after_send` intent through the replay gate: out of attempts → `failed`
 * with the reason kept; otherwise `pending` and one attempt now (the intent only became due
 * after the gate's backoff, see `nextUnknownCheckAt`).
 *
 * @param settled - a lookup proved the missing units absent: the doubt is cleared.
 */
async function toPendingAndReplay(
  deps: DeliveryDeps,
  adapter: ChannelMessageAdapter,
  intent: DurableSendIntent,
  signal: AbortSignal,
  why: string,
  settled = false,
): Promise<DurableSendIntent> {
  const last = intent.failure ?? OUTCOME_UNKNOWN;
  const gate = decideReplay(last, intent.attempt, deps.options.backoff, deps.random);
  if (gate.action === "fail") {
    const failure = {
      ...last,
      message: `${gate.reason} (outcome of the last attempt unknown; ${why}) — ${last.message}`,
    };
    const [failed] = await deps.store.transitionIntents([
      {
        id: intent.id,
        from: "unknown_after_send",
        to: "failed",
        owner: deps.owner,
        patch: { failure, lease: "release", nextAttemptAt: null },
      },
    ]);
    deps.logger.error(
      { intentId: intent.id, channel: intent.channel, status: "failed", attempt: intent.attempt },
      failure.message,
    );
    return failed as DurableSendIntent;
  }
  const { inDoubtSince: _settled, ...cleared } = last;
  const [pending] = await deps.store.transitionIntents([
    {
      id: intent.id,
      from: "unknown_after_send",
      to: "pending",
      owner: deps.owner,
      patch: { nextAttemptAt: null, ...(settled ? { failure: cleared } : {}) },
    },
  ]);
  deps.logger.info(
    { intentId: intent.id, channel: intent.channel, status: "pending" },
    `unknown send: ${why}`,
  );
  return runAttempt(deps, adapter, pending as DurableSendIntent, signal);
}

/**
 * Handles one leased `unknown_after_send` intent.
 *
 * @returns the intent as stored afterwards.
 */
export async function resolveUnknown(
  deps: DeliveryDeps,
  adapter: ChannelMessageAdapter,
  intent: DurableSendIntent,
  signal: AbortSignal,
): Promise<DurableSendIntent> {
  const delivery = adapter.capabilities.delivery ?? {};
  const now = deps.clock();
  if (replayIsIdempotent(intent)) {
    return toPendingAndReplay(
      deps,
      adapter,
      intent,
      signal,
      "edits and deletes are idempotent: replaying",
    );
  }
  if (keyTrusted(adapter, intent, now)) {
    return toPendingAndReplay(
      deps,
      adapter,
      intent,
      signal,
      "replaying with the same idempotency key",
    );
  }
  if (delivery.idempotencyKey) {
    deps.logger.warn(
      { intentId: intent.id, channel: intent.channel, windowMs: delivery.idempotencyWindowMs },
      "the platform's idempotency window has passed: the key no longer protects a replay",
    );
  }
  const reconcile = adapter.send.reconcileUnknownSend;
  const checks = intent.failure?.unresolvedChecks ?? 0;
  if (reconcile && checks < deps.options.maxReconcileChecks && intent.operation.kind === "send") {
    // No lookup before the platform could have stored a timed-out send (the settle delay).
    const settleAt = (intent.failure?.at ?? intent.updatedAt) + settleDelayMs(adapter);
    if (checks === 0 && now < settleAt) {
      return deps.store.updateIntent(
        intent.id,
        { status: "unknown_after_send", owner: deps.owner },
        { nextAttemptAt: settleAt, lease: "release" },
      );
    }
    const batch = intent.batch ?? (await renderBatch(adapter, intent));
    const done = deliveredUnitIndexes(intent.partialReceipt);
    const missing = batch.units.filter((u) => !done.has(u.index));
    const ctx: MessageSendContext = {
      intentId: intent.id,
      channel: intent.channel,
      message: intent.message,
      attempt: intent.attempt,
      idempotencyKey: intent.idempotencyKey,
      unitIdempotencyKey: unitIdempotencyKey(intent.idempotencyKey, missing[0]?.index ?? 0),
      signal,
      log: deps.logger.child({ intentId: intent.id }),
      ...(intent.accountId !== undefined ? { accountId: intent.accountId } : {}),
      ...(intent.partialReceipt ? { previousReceipt: intent.partialReceipt } : {}),
    };
    let result: ReconcileResult;
    try {
      result = await reconcile(ctx, missing);
    } catch (error) {
      result = {
        status: "unresolved",
        reason: redactWith(deps, error instanceof Error ? error.message : String(error)),
      };
    }
    if (result.status === "sent") {
      const receipt = mergeReceipts(
        intent.partialReceipt,
        receiptFromParts(result.parts, { sentAt: deps.clock() }),
      );
      const covered = deliveredUnitIndexes(receipt);
      // A lookup that matched another unit's message (two intents with the same text) is refused
      // by the store (CASES C40): held, never `sent` with that id.
      const held = (error: unknown) => {
        if (!isReceiptConflict(error)) throw error;
        return holdReceiptConflict(deps, intent, "unknown_after_send", error);
      };
      if (batch.units.every((u) => covered.has(u.index))) {
        try {
          await deps.store.transitionIntents([
            {
              id: intent.id,
              from: "unknown_after_send",
              to: "committing",
              owner: deps.owner,
              patch: { receipt, batch },
            },
          ]);
        } catch (error) {
          return held(error);
        }
        const [sent] = await deps.store.transitionIntents([
          {
            id: intent.id,
            from: "committing",
            to: "sent",
            owner: deps.owner,
            patch: { partialReceipt: null, failure: null },
          },
        ]);
        deps.logger.info(
          { intentId: intent.id, status: "sent" },
          "unknown send reconciled: the platform has it",
        );
        // Only sends are reconciled (see the guard above): the post-commit hook of a send.
        const committed = {
          ...ctx,
          unitIdempotencyKey: intent.idempotencyKey,
          previousReceipt: receipt,
        };
        await runSendHook(
          adapter,
          "afterCommit",
          committed,
          receipt,
          hookTimeoutOf(deps.options.leaseMs),
        );
        return sent as DurableSendIntent;
      }
      let updated: DurableSendIntent;
      try {
        updated = await deps.store.updateIntent(
          intent.id,
          { status: "unknown_after_send", owner: deps.owner },
          { partialReceipt: receipt, batch },
        );
      } catch (error) {
        return held(error);
      }
      if (reconcileDeclaration(adapter).notSent !== "complete") {
        return applyPolicy(deps, adapter, updated, signal);
      }
      return toPendingAndReplay(
        deps,
        adapter,
        updated,
        signal,
        "some parts found; sending the rest",
        true,
      );
    }
    if (result.status === "not_sent" && reconcileDeclaration(adapter).notSent === "complete") {
      return toPendingAndReplay(
        deps,
        adapter,
        intent,
        signal,
        "reconciled as not sent; replaying",
        true,
      );
    }
    if (result.status === "not_sent") {
      // A best-effort lookup found nothing: that proves nothing. The policy decides.
      intent = {
        ...intent,
        failure: {
          ...(intent.failure ?? OUTCOME_UNKNOWN),
          message: `${(intent.failure ?? OUTCOME_UNKNOWN).message} (a best-effort lookup found nothing)`,
        },
      };
      return applyPolicy(deps, adapter, intent, signal);
    }
    const failure: DeliveryFailure = {
      ...(intent.failure ?? OUTCOME_UNKNOWN),
      unresolvedChecks: checks + 1,
      message: `reconciliation unresolved (${checks + 1}/${deps.options.maxReconcileChecks})${result.reason ? `: ${result.reason}` : ""}`,
    };
    if (checks + 1 < deps.options.maxReconcileChecks) {
      return deps.store.updateIntent(
        intent.id,
        { status: "unknown_after_send", owner: deps.owner },
        {
          failure,
          nextAttemptAt:
            deps.clock() + backoffDelayMs(checks + 1, deps.options.backoff, deps.random),
          lease: "release",
        },
      );
    }
    intent = { ...intent, failure };
  }
  return applyPolicy(deps, adapter, intent, signal);
}

/** `unknownSendPolicy`: `at_least_once` replays through the gate; `hold` waits for an operator. */
async function applyPolicy(
  deps: DeliveryDeps,
  adapter: ChannelMessageAdapter,
  intent: DurableSendIntent,
  signal: AbortSignal,
): Promise<DurableSendIntent> {
  if (adapter.capabilities.delivery?.unknownSendPolicy === "at_least_once") {
    return toPendingAndReplay(
      deps,
      adapter,
      intent,
      signal,
      "at_least_once: replaying (a duplicate may be visible)",
    );
  }
  const held: DeliveryFailure = { ...(intent.failure ?? OUTCOME_UNKNOWN) };
  held.message = `${held.message} — held for an operator (unknownSendPolicy "hold"): check the chat, then \`herald queue retry ${intent.id}\` or \`cancel\``;
  deps.logger.error(
    { intentId: intent.id, channel: intent.channel, status: "unknown_after_send", held: true },
    held.message,
  );
  return deps.store.updateIntent(
    intent.id,
    { status: "unknown_after_send", owner: deps.owner },
    { failure: held, nextAttemptAt: HELD_FOR_OPERATOR_AT, lease: "release" },
  );
}
