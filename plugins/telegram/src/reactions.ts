/**
 * Reactions on Telegram ([H23]; PLATFORMS.md §10). `setMessageReaction` **sets the bot's whole
 * list** of reactions on a message (a bot, like a non-premium user, has at most one): an add
 * sets `[emoji]`, a remove sets `[]`. Setting the same list again changes nothing, so a replay
 * after a crash never toggles a reaction off (capability `repeat: "replaces_set"`); adding a
 * second emoji replaces the first. Only the emoji Telegram allows as reactions are accepted
 * (`REACTION_INVALID` otherwise, a 400).
 *
 * Inbound: `message_reaction` updates (in `allowed_updates`; the bot must be an administrator
 * of a group to get them) become `InboundReaction`s. An update carries the user's old and new
 * lists: an emoji in the new list only is an add, in the old only a remove; when one update
 * does both (a user swapping 👍 for 🎉), the add is reported and the whole diff is in `raw`.
 * Anonymous reactions (`actor_chat`, `message_reaction_count`) have no user and are ignored.
 *
 * Sources: https://core.telegram.org/bots/api#setmessagereaction,
 * https://core.telegram.org/bots/api#messagereactionupdated
 *
 * @module
 */

import type { ReactionTypeEmoji } from "@grammyjs/types";
import {
  type InboundReaction,
  type MessageSendContext,
  type NormalizeResult,
  parseInbound,
  type ReactRequest,
  z,
} from "@herald/plugin-sdk/channel-message";
import type { Api } from "grammy";
import { grammySignal } from "./client.ts";
import { chatIdOf, chatParam, messageRef, parseMessageRef } from "./send.ts";
import { targetOf } from "./target.ts";

type ReactionEmoji = ReactionTypeEmoji["emoji"];

/** The adapter's `send.react`: sets the bot's list to `[emoji]` (add) or `[]` (remove). */
export function createReact(api: Api) {
  return async (ctx: MessageSendContext, request: ReactRequest): Promise<void> => {
    const { chat, id } = parseMessageRef(request.messageId, chatIdOf(request.target));
    const reaction = request.remove
      ? []
      : [{ type: "emoji" as const, emoji: request.emoji.trim() as ReactionEmoji }];
    await api.setMessageReaction(chatParam(chat), id, reaction, {}, grammySignal(ctx.signal));
  };
}

const reactionTypeSchema = z.looseObject({
  type: z.string(),
  emoji: z.string().optional(),
  custom_emoji_id: z.string().optional(),
});

const reactionUpdateSchema = z.looseObject({
  update_id: z.number().int(),
  message_reaction: z.looseObject({
    chat: z.looseObject({
      id: z.number().int(),
      type: z.string(),
      title: z.string().optional(),
      username: z.string().optional(),
      first_name: z.string().optional(),
    }),
    message_id: z.number().int(),
    user: z.looseObject({ id: z.number().int(), is_bot: z.boolean().optional() }).optional(),
    date: z.number().int(),
    old_reaction: z.array(reactionTypeSchema),
    new_reaction: z.array(reactionTypeSchema),
  }),
});

/** Whether a raw update is a `message_reaction` (or the anonymous `message_reaction_count`). */
export function isReactionUpdate(raw: unknown): boolean {
  const u = raw as Record<string, unknown> | null;
  return (
    !!u &&
    typeof u === "object" &&
    (u.message_reaction !== undefined || u.message_reaction_count !== undefined)
  );
}

const nameOf = (r: z.output<typeof reactionTypeSchema>) =>
  r.type === "emoji" ? r.emoji : r.type === "custom_emoji" ? r.custom_emoji_id : r.type;

/**
 * The `InboundReaction` of a `message_reaction` update; its id is the update's `update_id`
 * (Telegram's own, the same on every redelivery).
 */
export function reactionOf(
  channel: string,
  raw: unknown,
  selfId: string,
  accountId: string | undefined,
): NormalizeResult {
  const u = raw as Record<string, unknown>;
  if (u.message_reaction === undefined) {
    return { kind: "ignore", reason: "anonymous reaction counts" };
  }
  const { update_id, message_reaction: r } = parseInbound(reactionUpdateSchema, raw, channel);
  if (!r.user) return { kind: "ignore", reason: "anonymous reaction" };
  if (String(r.user.id) === selfId) return { kind: "ignore", reason: "own reaction" };
  const before = new Set(r.old_reaction.map(nameOf));
  const after = new Set(r.new_reaction.map(nameOf));
  const added = [...after].find((e) => e && !before.has(e));
  const removed = [...before].find((e) => e && !after.has(e));
  const emoji = added ?? removed;
  if (!emoji) return { kind: "ignore", reason: "reaction unchanged" };
  const chat = String(r.chat.id);
  const reaction: InboundReaction = {
    kind: "reaction",
    id: `${chat}:${r.message_id}:reaction:${update_id}`,
    channel,
    ...(accountId !== undefined ? { accountId } : {}),
    target: targetOf({ chat: r.chat as Parameters<typeof targetOf>[0]["chat"] }),
    sender: { id: String(r.user.id), isBot: r.user.is_bot === true },
    messageId: messageRef(chat, r.message_id),
    emoji,
    removed: added === undefined,
    timestamp: r.date * 1_000,
    raw,
  };
  return reaction;
}
