/**
 * Delivers the units of a rendered batch one by one, skipping units that already have a
 * receipt part (recovery sends only what is missing), and reports each landed part at once so
 * the durable path can save it before the next platform call.
 *
 * @module
 */

import { runSendHook, SEND_HOOK_TIMEOUT_MS } from "../adapter/hooks.ts";
import type {
  ChannelMessageAdapter,
  ClassifiedFailure,
  MessageSendContext,
} from "../adapter/types.ts";
import { failpoint } from "../failpoint.ts";
import type { RenderedMessageBatch, RenderedMessageUnit } from "../message/batch.ts";
import type { DeliveryFailure } from "../message/failure.ts";
import { RETRY_POLICY } from "../message/failure.ts";
import type { IntentOperation } from "../message/intent.ts";
import { unitIdempotencyKey } from "../message/keys.ts";
import {
  deliveredUnitIndexes,
  type MessageReceipt,
  type MessageReceiptPart,
  mergeReceipts,
  receiptFromParts,
} from "../message/receipt.ts";
import { redactUrls } from "../redact.ts";

/** How a pass over the units ended. */
export type UnitsOutcome =
  | { status: "done"; receipt: MessageReceipt; skipped: DeliveryFailure[] }
  | { status: "failed"; receipt: MessageReceipt | undefined; failure: DeliveryFailure }
  | { status: "deferred"; receipt: MessageReceipt | undefined; waitMs: number };

/**
 * How long (ms) a follow-up call of an attempt — the fresh send after a vanished edit target, the
 * delete of a leftover part — may wait in memory for its tokens, at least: the longest window
 * a platform documents (Telegram's 20 a minute per group). Deferring it instead would repeat the
 * call before it (the edit) on the next attempt, which takes the tokens again, forever under a
 * limit slower than `maxInMemoryWaitMs`.
 */
export const FOLLOW_UP_WAIT_MS = 60_000;

/** Inputs of {@link deliverUnits}. */
export type DeliverUnitsParams = {
  adapter: ChannelMessageAdapter;
  ctx: Omit<MessageSendContext, "unitIdempotencyKey">;
  batch: RenderedMessageBatch;
  operation: IntentOperation;
  previous: MessageReceipt | undefined;
  /**
   * Waits for the rate-limit tokens of the next platform call. Resolves 0 when the call may go
   * now; a positive number (ms) when the wait is too long to hold in memory (the unit is not sent).
   * @param as - the call is not the unit's own: `"send"`, a fresh send after its edit target
   *   was gone (`freshSendOnEditNotFound`); `"delete"`, the delete of a part an edit no longer
   *   needs. Each comes after a call of this attempt that already took tokens, so its wait may be
   *   held longer in memory ({@link FOLLOW_UP_WAIT_MS}): deferring would repeat that call first.
   */
  reserve(unit: RenderedMessageUnit, index: number, as?: "send" | "delete"): Promise<number>;
  /**
   * Called when the platform call the last `reserve` was for has answered (or failed): its
   * tokens are then counted from no earlier than the answer minus the margin
   * (`RateLimitScheduler.settle`).
   */
  answered?: (() => void) | undefined;
  /** Called after every landed part with the merged receipt so far. */
  onPart(receipt: MessageReceipt, remaining: number): Promise<void>;
  clock: () => number;
  /** Redacts secrets from failure reasons (the runtime's `redact` option). */
  redact?: ((text: string) => string) | undefined;
  /**
   * The longest wait (ms) for an `afterSendSuccess` hook. @defaultValue `SEND_HOOK_TIMEOUT_MS`
   * (the durable path passes less when its lease is short: see {@link hookTimeoutOf}).
   */
  hookTimeoutMs?: number | undefined;
};

/**
 * The bound (ms) of a send hook on the durable path: `SEND_HOOK_TIMEOUT_MS`, or a quarter of
 * the lease when that is shorter, so hooks alone never outlast the attempt's lease.
 */
export function hookTimeoutOf(leaseMs: number): number {
  return Math.min(SEND_HOOK_TIMEOUT_MS, Math.max(1, Math.floor(leaseMs / 4)));
}

/**
 * Classifies an adapter error; an adapter whose classifier throws gets the safe default. The
 * reason kept is the adapter's message, else (an empty reason, a classifier that threw) the
 * error's own text with every URL's path, query and user info dropped (`redactUrls`) — both
 * through `redact` (the runtime's `redact` option), since an SDK error's text may hold a token.
 */
export function classify(
  adapter: ChannelMessageAdapter,
  error: unknown,
  ctx: MessageSendContext,
  now: number,
  redact: (text: string) => string = (text) => text,
): DeliveryFailure {
  let c: ClassifiedFailure;
  try {
    c = adapter.send.classifyError(error, ctx);
  } catch {
    c = { kind: "unknown", evidence: "maybe_sent", message: "" };
  }
  // The adapter gave no reason: its error's own text is unvetted (URLs may carry a token).
  return { ...c, message: redact(c.message || redactUrls(String(error))), at: now };
}

function notSupported(channel: string, what: string, now: number): DeliveryFailure {
  return {
    kind: "invalid_payload",
    evidence: "not_dispatched",
    message: `channel ${channel} cannot ${what} messages (capability absent)`,
    at: now,
  };
}

/** Delivers the missing units of `batch` for `operation`. Never throws for platform errors. */
export async function deliverUnits(p: DeliverUnitsParams): Promise<UnitsOutcome> {
  const { adapter, batch, operation } = p;
  let receipt = p.previous;
  const skipped: DeliveryFailure[] = [];
  const done = deliveredUnitIndexes(receipt);
  const todo = operation.kind === "delete" ? [] : batch.units.filter((u) => !done.has(u.index));

  for (const [i, unit] of todo.entries()) {
    const ctx: MessageSendContext = {
      ...p.ctx,
      previousReceipt: receipt ?? { platformMessageIds: [], parts: [], sentAt: 0 },
      unitIdempotencyKey: unitIdempotencyKey(p.ctx.idempotencyKey, unit.index),
    };
    if (!receipt) delete (ctx as { previousReceipt?: unknown }).previousReceipt;
    const waitMs = await p.reserve(unit, i);
    if (waitMs > 0) return { status: "deferred", receipt, waitMs };
    // Every unit boundary is a crash point: the parts before it saved, its call not yet made.
    failpoint("send.before_unit_call");
    let part: MessageReceiptPart;
    try {
      part = await callUnit(adapter, ctx, unit, operation).finally(p.answered);
    } catch (error) {
      const failure =
        error instanceof UnsupportedOperation
          ? notSupported(adapter.id, error.what, p.clock())
          : classify(adapter, error, ctx, p.clock(), p.redact);
      const fresh =
        operation.kind === "edit" &&
        failure.kind === "not_found" &&
        failure.evidence === "not_dispatched" &&
        adapter.capabilities.delivery?.freshSendOnEditNotFound === true;
      if (fresh) {
        // A platform call like any other: it waits for its own tokens (the edit took some).
        const freshWait = await p.reserve(unit, i, "send");
        if (freshWait > 0) return { status: "deferred", receipt, waitMs: freshWait };
        try {
          part = await adapter.send.send(ctx, unit).finally(p.answered);
        } catch (sendError) {
          return {
            status: "failed",
            receipt,
            failure: classify(adapter, sendError, ctx, p.clock(), p.redact),
          };
        }
      } else if (
        batch.atomicity === "best_effort_parts" &&
        !unit.required &&
        failure.evidence === "not_dispatched" &&
        !RETRY_POLICY[failure.kind].retry
      ) {
        skipped.push(failure);
        continue;
      } else {
        return { status: "failed", receipt, failure };
      }
    }
    const landed = receiptFromParts([part], { sentAt: p.clock() });
    // The unit is on the platform: the channel's post-send effects (never fails the send).
    await runSendHook(adapter, "afterSendSuccess", ctx, landed, p.hookTimeoutMs);
    receipt = mergeReceipts(receipt, landed);
    await p.onPart(receipt, todo.length - i - 1);
  }

  if (operation.kind === "delete") return deleteAll(p, skipped);
  if (operation.kind === "edit") await deleteLeftovers(p, batch);
  return {
    status: "done",
    receipt: receipt ?? receiptFromParts([], { sentAt: p.clock() }),
    skipped,
  };
}

class UnsupportedOperation extends Error {
  readonly what: string;
  constructor(what: string) {
    super(what);
    this.what = what;
  }
}

async function callUnit(
  adapter: ChannelMessageAdapter,
  ctx: MessageSendContext,
  unit: RenderedMessageUnit,
  operation: IntentOperation,
): Promise<MessageReceiptPart> {
  if (operation.kind === "reaction") {
    if (!adapter.send.react) throw new UnsupportedOperation("react to");
    const part = await adapter.send.react(ctx, {
      target: ctx.message.target,
      messageId: operation.messageId,
      emoji: operation.emoji,
      ...(operation.remove ? { remove: true } : {}),
    });
    // A reaction is no message of its own: its part is named by the operation's key (receipt
    // ids stay unique per intent), and `replyToId` names the reacted-to message.
    return {
      ...(part ?? {}),
      platformMessageId: `reaction:${ctx.unitIdempotencyKey}`,
      replyToId: operation.messageId,
      kind: "reaction",
      index: unit.index,
    };
  }
  if (operation.kind !== "edit") return adapter.send.send(ctx, unit);
  const target =
    operation.receipt.parts.find((part) => part.index === unit.index) ??
    operation.receipt.parts[unit.index];
  if (!target) return adapter.send.send(ctx, unit); // the new text needs more messages
  if (!adapter.send.edit) throw new UnsupportedOperation("edit");
  const edited = await adapter.send.edit(ctx, target, unit);
  return { ...edited, index: unit.index };
}

async function deleteAll(p: DeliverUnitsParams, skipped: DeliveryFailure[]): Promise<UnitsOutcome> {
  const { adapter, operation } = p;
  if (operation.kind !== "delete") throw new Error("unreachable");
  if (!adapter.send.delete) {
    return {
      status: "failed",
      receipt: undefined,
      failure: notSupported(adapter.id, "delete", p.clock()),
    };
  }
  for (const part of operation.receipt.parts) {
    const waitMs = await p.reserve(
      { index: part.index, kind: part.kind, payload: null, required: true },
      0,
    );
    if (waitMs > 0) return { status: "deferred", receipt: undefined, waitMs };
    // Each part's delete is its own platform call, with its own key.
    const ctx: MessageSendContext = {
      ...p.ctx,
      unitIdempotencyKey: unitIdempotencyKey(p.ctx.idempotencyKey, part.index),
    };
    try {
      await adapter.send.delete(ctx, part).finally(p.answered);
    } catch (error) {
      const failure = classify(adapter, error, ctx, p.clock(), p.redact);
      if (failure.kind !== "not_found") return { status: "failed", receipt: undefined, failure };
    }
  }
  const receipt: MessageReceipt = {
    platformMessageIds: [...operation.receipt.platformMessageIds],
    parts: [],
    sentAt: p.clock(),
  };
  return { status: "done", receipt, skipped };
}

async function deleteLeftovers(p: DeliverUnitsParams, batch: RenderedMessageBatch): Promise<void> {
  const { adapter, operation } = p;
  if (operation.kind !== "edit" || !adapter.send.delete) return;
  const used = new Set(batch.units.map((u) => u.index));
  for (const part of operation.receipt.parts) {
    if (used.has(part.index)) continue;
    const ctx: MessageSendContext = {
      ...p.ctx,
      unitIdempotencyKey: unitIdempotencyKey(p.ctx.idempotencyKey, part.index, "leftover"),
    };
    const unit = { index: part.index, kind: part.kind, payload: null, required: false };
    const waitMs = await p.reserve(unit, 0, "delete");
    if (waitMs > 0) {
      // Only a stop ends a follow-up's wait early: the edit landed, the leftovers stay visible.
      p.ctx.log.warn(
        { platformMessageId: part.platformMessageId, waitMs },
        "not deleting the leftover parts after an edit: rate-limited past the in-memory wait",
      );
      return;
    }
    try {
      await adapter.send.delete(ctx, part).finally(p.answered);
    } catch (error) {
      p.ctx.log.warn(
        { err: error, platformMessageId: part.platformMessageId },
        "could not delete a leftover part after an edit",
      );
    }
  }
}
