/**
 * Resolving `unknown_after_send` intents (DESIGN §3; seed "Send context"): the platform may or
 * may not have the message. In order of preference:
 * 0. an edit whose next unit edits an existing message, or a delete: replay — applying the same
 *    edit again changes nothing ("not modified" is success) and deleting again is "not found";
 * 1. native idempotency (`capabilities.delivery.idempotencyKey`): replay with the same keys —
 *    the platform drops the duplicate;
 * 2. `send.reconcileUnknownSend`: ask the platform — `sent` → commit, `not_sent` → replay,
 *    `unresolved` → check again later (up to `maxReconcileChecks`);
 * 3. `capabilities.delivery.unknownSendPolicy`: `at_least_once` replays (a duplicate may become
 *    visible); `hold` (default) waits for an operator.
 *
 * @module
 */
import type { ChannelMessageAdapter, ReconcileResult } from "../adapter/types.ts";
import { backoffDelayMs, DEFAULT_BACKOFF, type DeliveryFailure } from "../message/failure.ts";
import { type DurableSendIntent, HELD_FOR_OPERATOR_AT } from "../message/intent.ts";
import { deliveredUnitIndexes, mergeReceipts, receiptFromParts } from "../message/receipt.ts";
import { renderBatch, runAttempt } from "./attempt.ts";
import type { DeliveryDeps } from "./deps.ts";

async function toPendingAndReplay(
  deps: DeliveryDeps,
  adapter: ChannelMessageAdapter,
  intent: DurableSendIntent,
  signal: AbortSignal,
  why: string,
): Promise<DurableSendIntent> {
  const [pending] = await deps.store.transitionIntents([
    {
      id: intent.id,
      from: "unknown_after_send",
      to: "pending",
      owner: deps.owner,
      patch: { nextAttemptAt: null },
    },
  ]);
  deps.logger.info(
    { intentId: intent.id, channel: intent.channel, status: "pending" },
    `unknown send: ${why}`,
  );
  return runAttempt(deps, adapter, pending as DurableSendIntent, signal);
}

/**
 * True when replaying cannot duplicate anything: a delete, or an edit whose first missing unit
 * edits an existing message (a unit without a target would be a new message: not safe). An
 * edit answered "not found" that fell back to a fresh send is the one exception; channels
 * without native idempotency may then show that unit twice (documented at-least-once).
 */
function replayIsIdempotent(intent: DurableSendIntent): boolean {
  const op = intent.operation;
  if (op.kind === "delete") return true;
  if (op.kind !== "edit" || !intent.batch) return false;
  const done = deliveredUnitIndexes(intent.partialReceipt);
  const next = intent.batch.units.find((u) => !done.has(u.index));
  if (!next) return true;
  return (
    (op.receipt.parts.find((p) => p.index === next.index) ?? op.receipt.parts[next.index]) !==
    undefined
  );
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
  const maxAttempts = deps.options.backoff.maxAttempts ?? DEFAULT_BACKOFF.maxAttempts;
  if (replayIsIdempotent(intent) && intent.attempt < maxAttempts) {
    return toPendingAndReplay(
      deps,
      adapter,
      intent,
      signal,
      "edits and deletes are idempotent: replaying",
    );
  }
  if (delivery.idempotencyKey) {
    return toPendingAndReplay(
      deps,
      adapter,
      intent,
      signal,
      "replaying with the same idempotency key",
    );
  }
  const reconcile = adapter.send.reconcileUnknownSend;
  const checks = intent.failure?.unresolvedChecks ?? 0;
  if (reconcile && checks < deps.options.maxReconcileChecks && intent.operation.kind === "send") {
    const batch = intent.batch ?? (await renderBatch(adapter, intent));
    const done = deliveredUnitIndexes(intent.partialReceipt);
    const missing = batch.units.filter((u) => !done.has(u.index));
    let result: ReconcileResult;
    try {
      const ctx = {
        intentId: intent.id,
        channel: intent.channel,
        message: intent.message,
        attempt: intent.attempt,
        idempotencyKey: intent.idempotencyKey,
        unitIdempotencyKey: `${intent.idempotencyKey}#${missing[0]?.index ?? 0}`,
        signal,
        log: deps.logger.child({ intentId: intent.id }),
        ...(intent.accountId !== undefined ? { accountId: intent.accountId } : {}),
        ...(intent.partialReceipt ? { previousReceipt: intent.partialReceipt } : {}),
      };
      result = await reconcile(ctx, missing);
    } catch (error) {
      result = {
        status: "unresolved",
        reason: error instanceof Error ? error.message : String(error),
      };
    }
    if (result.status === "sent") {
      const receipt = mergeReceipts(
        intent.partialReceipt,
        receiptFromParts(result.parts, { sentAt: deps.clock() }),
      );
      const covered = deliveredUnitIndexes(receipt);
      if (batch.units.every((u) => covered.has(u.index))) {
        await deps.store.transitionIntents([
          {
            id: intent.id,
            from: "unknown_after_send",
            to: "committing",
            owner: deps.owner,
            patch: { receipt, batch },
          },
        ]);
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
        return sent as DurableSendIntent;
      }
      const updated = await deps.store.updateIntent(
        intent.id,
        { status: "unknown_after_send", owner: deps.owner },
        { partialReceipt: receipt, batch },
      );
      return toPendingAndReplay(
        deps,
        adapter,
        updated,
        signal,
        "some parts found; sending the rest",
      );
    }
    if (result.status === "not_sent") {
      return toPendingAndReplay(deps, adapter, intent, signal, "reconciled as not sent; replaying");
    }
    const failure: DeliveryFailure = {
      ...(intent.failure ?? {
        kind: "unknown",
        evidence: "maybe_sent",
        message: "outcome unknown",
      }),
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
  if (delivery.unknownSendPolicy === "at_least_once") {
    return toPendingAndReplay(
      deps,
      adapter,
      intent,
      signal,
      "at_least_once: replaying (a duplicate may be visible)",
    );
  }
  const held: DeliveryFailure = {
    ...(intent.failure ?? { kind: "unknown", evidence: "maybe_sent", message: "outcome unknown" }),
  };
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
