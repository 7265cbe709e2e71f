/**
 * The send-side steps every plain plugin wrote by hand ([H27] item 1, one copy each): which part
 * quotes the message a reply answers, a batch of plain-text parts, and a reconciler that looks
 * each unit up on the platform.
 *
 * @module
 */
import type {
  ChannelMessage,
  MessageReceiptPart,
  MessageSendContext,
  ReconcileResult,
  RenderedMessageBatch,
  RenderedMessageUnit,
} from "@herald/core";
import { chunkText } from "../render/index.ts";

/**
 * The platform message id a send quotes (Telegram `reply_parameters`, Discord
 * `message_reference`, Matrix `m.in_reply_to`): the reply relation's `replyToId` on part 0,
 * under placement `quote` — the default when none is given. `inline`, `thread` and `broadcast`
 * replies quote nothing, and parts 1..n never do (seed `message-lifecycle.md`, "Reply
 * placement"; the contract's `reply` area checks it).
 *
 * @returns the id to quote, or undefined.
 */
export function quotedReplyId(
  ctx: Pick<MessageSendContext, "message">,
  unit: Pick<RenderedMessageUnit, "index">,
): string | undefined {
  const { relation } = ctx.message;
  if (unit.index !== 0 || relation?.kind !== "reply") return undefined;
  return (relation.placement ?? "quote") === "quote" ? relation.replyToId : undefined;
}

/**
 * A platform that shows text as sent: the message's markdown (or `""`), cut by {@link chunkText}
 * into parts of at most `maxLength` UTF-16 units, each a required `text` unit, retried part by
 * part (`all_or_retry_remaining`). A platform with its own markup renders with its dialect
 * (`renderSlack`, `renderDiscord` …) instead.
 *
 * @param options.maxLength - the platform's limit per message, in UTF-16 units.
 * @example
 * render: { render: (message, ctx) => plainTextBatch(message, ctx, { maxLength: 2_000 }) }
 */
export function plainTextBatch(
  message: Pick<ChannelMessage, "body">,
  ctx: { idempotencyKey: string },
  options: { maxLength: number },
): RenderedMessageBatch {
  const chunks = chunkText(message.body?.markdown ?? "", { maxLength: options.maxLength });
  return {
    idempotencyKey: ctx.idempotencyKey,
    atomicity: "all_or_retry_remaining",
    units: chunks.map((c, index) => ({ index, kind: "text", payload: c.text, required: true })),
  };
}

/**
 * `reconcileUnknownSend` for a platform that can look a unit up (by the client key it was sent
 * with, or by metadata): `find(unit)` for each unit in order; the parts found make `sent` (core
 * sends only the missing units), none found makes `not_sent`. A lookup that throws makes the
 * whole result throw — unresolved, never a guess — so declare `reconcile.notSent: "complete"`
 * only when a miss really proves the unit was not stored.
 *
 * @param find - the unit's receipt part on the platform, or undefined when it is not there.
 * @example
 * reconcileUnknownSend: (ctx, units) =>
 *   reconcileEachUnit(units, async (unit) => lookUp(keyOf(unitIdempotencyKey(ctx.idempotencyKey, unit.index))))
 */
export async function reconcileEachUnit(
  units: readonly RenderedMessageUnit[],
  find: (unit: RenderedMessageUnit) => Promise<MessageReceiptPart | undefined>,
): Promise<ReconcileResult> {
  const parts: MessageReceiptPart[] = [];
  for (const unit of units) {
    const part = await find(unit);
    if (part) parts.push(part);
  }
  return parts.length > 0 ? { status: "sent", parts } : { status: "not_sent" };
}
