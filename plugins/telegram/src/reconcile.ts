/**
 * Reconciling a send whose outcome is unknown (`reconcile: "probe"`). Telegram has no
 * idempotency key and a bot cannot read chat history, but an edit that changes nothing tells
 * whose a message is: `editMessageReplyMarkup` with exactly the reply markup the lost unit
 * carried answers "message is not modified" on a message of this bot that has that markup,
 * "message can't be edited" on someone else's, and "message to edit not found" where there is
 * none. The probe changes the reply markup only — never the text — so even a wrong guess cannot
 * rewrite what a message says.
 *
 * It is sound only inside what {@link OutboundLedger} vouches for: message ids come in order
 * in a chat, so the lost message, if it exists, has an id above the highest id this process had
 * created in that chat when the send started; every other message of this bot above it is one
 * this process knows — unless another send to the chat is open, or another process sends as
 * this bot. The ledger refuses the first case; the second is why probing is opt-in.
 *
 * The probe can prove "sent", never "not sent" (a missing id may just be further on): what it
 * cannot find stays `unresolved` and follows `unknownSendPolicy`.
 *
 * @module
 */

import {
  type MessageSendContext,
  type ReconcileResult,
  type RenderedMessageUnit,
  sleep,
} from "@herald/plugin-sdk/channel-message";
import type { Api } from "grammy";
import { grammySignal } from "./client.ts";
import { TelegramApiError } from "./errors.ts";
import type { OutboundLedger } from "./ledger.ts";
import type { TelegramUnitPayload } from "./render.ts";
import { chatIdOf, chatParam, messageRef, threadParamOf } from "./send.ts";

/** What the probe needs. */
export type ProbeDeps = {
  api: Api;
  ledger: OutboundLedger;
  /** Ids probed per check. */
  maxProbes: number;
  /**
   * Least time between two probes in one chat, in ms: probes are edits, and edits count
   * against Telegram's per-chat limit like messages do.
   */
  probeIntervalMs: number;
};

/**
 * `reconcileUnknownSend` by probing. Units are sent in order and an attempt stops at its first
 * failure, so only the first missing unit can have landed: it is looked for; `sent` with its
 * part lets herald send the units after it.
 */
export function createProbe(deps: ProbeDeps) {
  const lastProbeAt = new Map<string, number>();
  return async (
    ctx: MessageSendContext,
    units: readonly RenderedMessageUnit[],
  ): Promise<ReconcileResult> => {
    const unit = units[0];
    if (!unit) return { status: "sent", parts: [] };
    const chat = chatIdOf(ctx.message.target);
    const key = ctx.unitIdempotencyKey;
    const range = deps.ledger.probeRange(chat, key, deps.maxProbes);
    if (!range.ok) return { status: "unresolved", reason: `probe refused: ${range.reason}` };
    const payload = unit.payload as TelegramUnitPayload;
    const markup = payload.replyMarkup ? { reply_markup: payload.replyMarkup } : {};
    for (const id of range.ids) {
      const wait = (lastProbeAt.get(chat) ?? 0) + deps.probeIntervalMs - Date.now();
      if (wait > 0) await sleep(wait, ctx.signal);
      if (ctx.signal.aborted) return { status: "unresolved", reason: "probe aborted" };
      lastProbeAt.set(chat, Date.now());
      try {
        await deps.api.editMessageReplyMarkup(
          chatParam(chat),
          id,
          markup,
          grammySignal(ctx.signal),
        );
      } catch (error) {
        if (error instanceof TelegramApiError && error.notModified) {
          deps.ledger.landed(chat, key, id);
          const thread = threadParamOf(ctx);
          return {
            status: "sent",
            parts: [
              {
                platformMessageId: messageRef(chat, id),
                kind: unit.kind,
                index: unit.index,
                ...(thread !== undefined ? { threadId: String(thread) } : {}),
              },
            ],
          };
        }
        if (error instanceof TelegramApiError && error.errorCode === 400) continue; // not ours / none
        return {
          status: "unresolved",
          reason: `probe of ${messageRef(chat, id)} failed: ${(error as Error).message}`,
        };
      }
      // The edit changed something: a message of this bot the ledger did not know. Another
      // sender is active; stop, and never probe this chat again (the next probe of that id
      // would answer "not modified" and be taken for the lost message).
      deps.ledger.sawForeign(chat, id);
      ctx.log.error(
        { chat, messageId: id },
        "telegram reconcile probe changed the reply markup of an unknown message of this bot: another process sends as this bot; set reconcile: off",
      );
      return {
        status: "unresolved",
        reason: `probe found an unknown message ${messageRef(chat, id)} of this bot (another sender?)`,
      };
    }
    return {
      status: "unresolved",
      reason: `not among ids ${range.ids[0]}–${range.ids.at(-1)} of chat ${chat}`,
    };
  };
}
