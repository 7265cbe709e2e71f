/**
 * Preflight: the authorization of a message that passed echo drop and dedupe (seed,
 * "Receive context": route and authorize). Order: `allowBots`, mention policy, the adapter's own
 * preflight, then the per-pair loop guard (last, so only otherwise-accepted events count).
 *
 * @module
 */
import type { MessageEventClass, MessageReceiveAdapter } from "../adapter/receive.ts";
import type { ChannelMessage } from "../message/message.ts";
import { canonicalId } from "./classify.ts";
import type { LoopGuard } from "./LoopGuard.ts";
import type { ReceiveDropReason } from "./types.ts";

/** Preflight verdict. */
export type PreflightVerdict =
  | { action: "accept" }
  | { action: "drop"; reason: ReceiveDropReason; detail?: string };

/** The policies preflight applies. */
export type PreflightPolicy = {
  allowBots: boolean;
  requireMention: boolean;
  loopGuard: LoopGuard | undefined;
};

/** Runs preflight for one message at `now` (epoch ms). */
export async function preflight(
  message: ChannelMessage,
  event: MessageEventClass,
  adapter: MessageReceiveAdapter,
  policy: PreflightPolicy,
  now: number,
): Promise<PreflightVerdict> {
  if (event.isBotAuthor && !policy.allowBots) return { action: "drop", reason: "bot_author" };
  if (policy.requireMention && event.isRoomish && !event.mentionsSelf)
    return { action: "drop", reason: "mention_required" };
  if (adapter.preflight) {
    const verdict = await adapter.preflight(message, event);
    if (verdict.action === "drop")
      return { action: "drop", reason: "preflight", detail: verdict.reason };
  }
  if (event.isBotAuthor && policy.loopGuard) {
    const verdict = await policy.loopGuard.verdict(loopPair(message, event, adapter), now);
    if (verdict.action === "drop")
      return {
        action: "drop",
        reason: "loop_guard",
        detail: `cooling down until ${new Date(verdict.cooldownUntil).toISOString()}`,
      };
  }
  return { action: "accept" };
}

/** The loop-guard pair: our account × the other bot × the conversation. */
export function loopPair(
  message: ChannelMessage,
  event: MessageEventClass,
  adapter: MessageReceiveAdapter,
): string {
  const ci = adapter.idsCaseInsensitive === true;
  const author = canonicalId(event.authorIds?.[0] ?? message.sender?.id ?? "?", ci);
  return [message.channel, message.accountId ?? "", message.target.id, author].join("\u0000");
}
