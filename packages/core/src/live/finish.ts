/**
 * How a session's final is delivered (seed "Live context"; DESIGN §6):
 * - **in place** when allowed — not stale, every preview that must change is editable, the
 *   final is text only: one durable `edit` intent over the previews (kept ones pre-recorded),
 *   new messages for units beyond them;
 * - otherwise **fresh**: one durable `send` intent; the caller deletes the previews only after
 *   it was accepted;
 * - `native`: the stream is finished with the final text, or the final is sent fresh.
 *
 * @module
 */
import { DeliveryFailedError } from "../delivery/errors.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { MessageReceipt } from "../message/receipt.ts";
import { liveCall, reserveNow } from "./calls.ts";
import { editRateOnly, type LiveRef } from "./env.ts";
import {
  batchOf,
  deliverFinal,
  type FinalPlan,
  planInPlace,
  previewsDeletable,
  previewsShowing,
} from "./final.ts";
import { finishInPlace, streamFinalOf } from "./native.ts";
import type { Feed } from "./previews.ts";
import { renderUnits, segmentsOf } from "./segments.ts";
import type { LiveMode } from "./types.ts";

/** The session facts a final needs. */
export type FinalizeContext = {
  ref: LiveRef;
  mode: LiveMode;
  key: string;
  waitMs: number;
  /** Runs once the final's intent is written, before it is delivered (see `deliverFinal`). */
  beforeDeliver?: () => Promise<MessageReceipt | undefined>;
  /**
   * A preview call was in flight when the session was finalized: what it shows was unknown
   * when the final was planned, so a fresh final looks again once it landed.
   */
  previewInFlight?: boolean;
};

/** The final as a new message through the durable send path, under `key`. */
export async function sendFreshFinal(
  c: FinalizeContext,
  message: ChannelMessage,
  key: string,
  save = true,
): Promise<MessageReceipt> {
  const { ref } = c;
  if (save) {
    ref.record = { ...ref.record, phase: "finalizing", finalKey: key };
    await ref.save();
  }
  const units = await renderUnits(ref.adapter, message, key);
  return deliverFinal(ref, {
    key,
    message,
    operation: { kind: "send" },
    batch: batchOf(units, key),
    waitMs: c.waitMs,
    beforeDeliver: c.beforeDeliver,
  });
}

/** The final of a `partial` / `block` / `progress` session. */
export async function finalizeOverPreviews(
  c: FinalizeContext,
  message: ChannelMessage,
  text: string,
  hasMedia: boolean,
): Promise<MessageReceipt> {
  const { ref, key } = c;
  let plan: FinalPlan = { strategy: "fresh", reason: "the final has attachments" };
  let units: Awaited<ReturnType<typeof segmentsOf>> = [];
  if (!hasMedia) {
    units = await segmentsOf(ref.adapter, ref.base, c.mode, { text, progress: "" }, true, key);
    // Blocks are finished content, never stale; previews are, once old enough.
    const stale = c.mode !== "block" && ref.stale() && previewsDeletable(ref);
    plan = stale ? { strategy: "fresh", reason: "the preview is stale" } : planInPlace(ref, units);
  }
  if (plan.strategy === "fresh") {
    ref.log.debug({ reason: plan.reason }, "final sent fresh");
    if (!c.previewInFlight || hasMedia || c.mode === "block")
      return sendFreshFinal(c, message, key);
    // Once the call in flight landed, previews that show the final exactly are the final.
    const before = c.beforeDeliver;
    return sendFreshFinal(
      {
        ...c,
        beforeDeliver: async () => {
          await before?.();
          return previewsShowing(ref, units);
        },
      },
      message,
      key,
    );
  }
  // Never wait in memory before the final is written (DESIGN §3 "Waiting is durable"): when the
  // edit rate or a platform pause (retry-after) holds the chat, the intent is due when it ends.
  const wait =
    plan.edits > 0 ? reserveNow(ref, editRateOnly(ref.adapter), liveCall(ref, "edit")) : 0;
  ref.record = { ...ref.record, phase: "finalizing", finalKey: key };
  await ref.save();
  try {
    return await deliverFinal(ref, {
      key,
      message,
      operation: { kind: "edit", receipt: plan.targets },
      batch: batchOf(units, key),
      kept: plan.kept,
      waitMs: c.waitMs,
      notBefore: wait > 0 ? ref.now + wait : undefined,
      beforeDeliver: c.beforeDeliver,
    });
  } catch (error) {
    // Only "not found" means a preview is gone (C13); rate limits and 5xx were retried.
    if (!(error instanceof DeliveryFailedError && error.failure?.kind === "not_found")) throw error;
    ref.log.warn({}, "a preview is gone; sending the final fresh");
    return sendFreshFinal(c, message, `${key}:fresh`);
  }
}

/**
 * The final of a `native` session: finish the stream in place when the final fits one message,
 * handing the adapter what the stream already shows (`feed`), so a stop that appends cannot
 * double the text.
 */
export async function finalizeNative(
  c: FinalizeContext,
  message: ChannelMessage,
  text: string,
  hasMedia: boolean,
  feed: Feed,
): Promise<MessageReceipt> {
  if (!hasMedia) {
    const units = await renderUnits(c.ref.adapter, message, c.key);
    if (units.length === 1 && units[0]?.kind === "text") {
      // The final text is on the live record before anything waits for an append in flight:
      // recovery finishes the stream with it if this process dies meanwhile.
      c.ref.record = { ...c.ref.record, phase: "finalizing", finalKey: c.key, nativeFinal: text };
      await c.ref.save();
      await c.beforeDeliver?.();
      const receipt = await finishInPlace(c.ref, c.key, streamFinalOf(feed, text));
      if (receipt) return receipt;
    }
  }
  return sendFreshFinal(c, message, c.key);
}
