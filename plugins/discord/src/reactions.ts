/**
 * Reactions on Discord ([H23]; PLATFORMS.md §10): `send.react` is `PUT` (add) or `DELETE`
 * (remove) `/channels/{channel}/messages/{message}/reactions/{emoji}/@me` through discord.js's
 * REST. Both answer 204 whether or not the reaction was already there, so a replay after a
 * crash never toggles a reaction off (capability `repeat: "idempotent"`). Inbound
 * `MESSAGE_REACTION_ADD` / `MESSAGE_REACTION_REMOVE` dispatches become `InboundReaction`s
 * (gateway intents `GuildMessageReactions`, `DirectMessageReactions`).
 *
 * Emoji: a Unicode emoji as is; a custom emoji as `name:id` (`<:name:id>` is accepted).
 *
 * Sources: https://discord.com/developers/docs/resources/message#create-reaction,
 * https://discord.com/developers/docs/resources/message#delete-own-reaction,
 * https://discord.com/developers/docs/events/gateway-events#message-reaction-add
 *
 * @module
 */
import {
  type InboundReaction,
  type MessageSendContext,
  type MessageTarget,
  type NormalizeResult,
  parseInbound,
  type ReactRequest,
  z,
} from "@herald/plugin-sdk/channel-message";
import { DISCORD_CHANNEL_ID } from "./account.ts";
import type { DiscordRest } from "./client.ts";
import { channelOf, messageRef, parseMessageRef } from "./send.ts";

/** The emoji as Discord's reaction route names it: Unicode as is, a custom one as `name:id`. */
export function discordEmoji(emoji: string): string {
  const custom = /^<a?:([\w~-]+):(\d+)>$/.exec(emoji.trim());
  return custom ? `${custom[1]}:${custom[2]}` : emoji.trim();
}

/** The route of the bot's own reaction `emoji` on a message. */
export function ownReactionRoute(channel: string, id: string, emoji: string): `/${string}` {
  return `/channels/${channel}/messages/${id}/reactions/${encodeURIComponent(discordEmoji(emoji))}/@me`;
}

/** The adapter's `send.react`: PUT / DELETE of the bot's own reaction (both idempotent). */
export function createReact(rest: DiscordRest) {
  return async (ctx: MessageSendContext, request: ReactRequest): Promise<void> => {
    const { channel, id } = parseMessageRef(request.messageId, channelOf(request.target));
    await rest.call({
      method: request.remove ? "DELETE" : "PUT",
      route: ownReactionRoute(channel, id, request.emoji),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
  };
}

/** Dispatches normalized here. */
export const REACTION_DISPATCHES = new Set(["MESSAGE_REACTION_ADD", "MESSAGE_REACTION_REMOVE"]);

const reactionSchema = z.looseObject({
  user_id: z.string().min(1),
  channel_id: z.string().min(1),
  message_id: z.string().min(1),
  guild_id: z.string().optional(),
  emoji: z.looseObject({ id: z.string().nullish(), name: z.string().nullish() }),
});

/**
 * The `InboundReaction` of a reaction dispatch. Discord's dispatch has no timestamp or id: the
 * reaction's id is message + user + emoji + add/remove + the gateway session and sequence (a
 * RESUME replays the same sequence, so a replay is the same reaction; a later add is not).
 * The bot's own reactions are ignored.
 */
export function reactionOf(
  inbound: { t: string; s?: number | null | undefined; d: unknown; session?: string | undefined },
  target: (d: { channel_id: string; guild_id?: string | undefined }) => MessageTarget,
  selfIds: readonly string[],
  receivedAt: number,
): NormalizeResult {
  const d = parseInbound(reactionSchema, inbound.d, DISCORD_CHANNEL_ID);
  if (selfIds.includes(d.user_id)) return { kind: "ignore", reason: "own_reaction" };
  const emoji = d.emoji.id ? `${d.emoji.name ?? ""}:${d.emoji.id}` : (d.emoji.name ?? "");
  if (!emoji) return { kind: "ignore", reason: "reaction_without_emoji" };
  const removed = inbound.t === "MESSAGE_REACTION_REMOVE";
  const ref = messageRef(d.channel_id, d.message_id);
  const reaction: InboundReaction = {
    kind: "reaction",
    id: `${ref}:${d.user_id}:${emoji}:${removed ? "remove" : "add"}:${inbound.session ?? ""}:${inbound.s ?? ""}`,
    channel: DISCORD_CHANNEL_ID,
    target: target(d),
    sender: { id: d.user_id },
    messageId: ref,
    emoji,
    removed,
    timestamp: receivedAt,
    raw: inbound,
  };
  return reaction;
}
