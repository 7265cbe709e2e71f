/**
 * Reactions on Slack ([H23]; PLATFORMS.md §10): `send.react` adds with `reactions.add` and
 * removes with `reactions.remove`. Slack answers a repeat with an error — `already_reacted` on
 * an add, `no_reaction` on a remove — which this maps to success, so a replay after a crash
 * never toggles a reaction off (capability `repeat: "error_means_done"`). Inbound
 * `reaction_added` / `reaction_removed` events become `InboundReaction`s.
 *
 * Slack names emoji (`eyes`, `white_check_mark`): a Unicode emoji (`👀`) is sent by its name
 * (looked up with `node-emoji`), `:eyes:` with the colons dropped; inbound reactions carry the
 * Unicode emoji when the name is a standard one (`eyes` → `👀`), else Slack's name (custom
 * emoji, skin tones).
 *
 * Sources: https://docs.slack.dev/reference/methods/reactions.add,
 * https://docs.slack.dev/reference/methods/reactions.remove,
 * https://docs.slack.dev/reference/events/reaction_added
 *
 * @module
 */
import {
  type InboundReaction,
  ignore,
  type MessageSendContext,
  type NormalizeResult,
  parseInbound,
  type ReactRequest,
  z,
} from "@herald/plugin-sdk/channel-message";
import type { WebClient } from "@slack/web-api";
import * as nodeEmoji from "node-emoji";
import { SLACK_CHANNEL_ID } from "./account.ts";
import { channelOf, messageRef, parseMessageRef } from "./target.ts";

/** Slack's answers to a repeated add / remove: the reaction already is as asked. */
const DONE_CODES: Readonly<Record<"add" | "remove", string>> = {
  add: "already_reacted",
  remove: "no_reaction",
};

/** Slack's emoji name of `emoji`: `:eyes:` → `eyes`, `👀` → `eyes`, `eyes` → `eyes`. */
export function slackEmojiName(emoji: string): string {
  const trimmed = emoji.trim();
  if (trimmed.startsWith(":") && trimmed.endsWith(":") && trimmed.length > 2) {
    return trimmed.slice(1, -1);
  }
  if (/^[\w+'-]+$/.test(trimmed)) return trimmed;
  return nodeEmoji.which(trimmed) ?? trimmed;
}

/** The Unicode emoji of a Slack emoji name when it is a standard one, else the name. */
export function emojiOfSlackName(name: string): string {
  return nodeEmoji.has(name) ? (nodeEmoji.get(name) ?? name) : name;
}

/** The Web API error code of an `@slack/web-api` platform error, if it is one. */
function platformCode(error: unknown): string | undefined {
  const data = (error as { data?: { error?: unknown } } | null)?.data;
  return typeof data?.error === "string" ? data.error : undefined;
}

/**
 * The adapter's `send.react`: adds or removes one reaction; `already_reacted` / `no_reaction`
 * are success. Other failures throw (classified by `classifyError`).
 */
export function createReact(client: WebClient) {
  return async (ctx: MessageSendContext, request: ReactRequest): Promise<void> => {
    const { channel, ts } = parseMessageRef(request.messageId, channelOf(request.target));
    const name = slackEmojiName(request.emoji);
    const op = request.remove ? "remove" : "add";
    try {
      if (op === "remove") await client.reactions.remove({ channel, timestamp: ts, name });
      else await client.reactions.add({ channel, timestamp: ts, name });
    } catch (error) {
      if (platformCode(error) !== DONE_CODES[op]) throw error;
      ctx.log.debug({ code: DONE_CODES[op] }, "reaction already as asked: done");
    }
  };
}

const reactionEventSchema = z.looseObject({
  type: z.enum(["reaction_added", "reaction_removed"]),
  user: z.string().min(1),
  reaction: z.string().min(1),
  item_user: z.string().optional(),
  item: z.looseObject({
    type: z.string(),
    channel: z.string().optional(),
    ts: z.string().optional(),
  }),
  event_ts: z.string().min(1),
});

const reactionCallbackSchema = z.looseObject({
  type: z.literal("event_callback"),
  team_id: z.string().min(1),
  event: reactionEventSchema,
});

/** Whether an Events API event type is a reaction this module normalizes. */
export function isReactionEvent(type: string): boolean {
  return type === "reaction_added" || type === "reaction_removed";
}

/**
 * The `InboundReaction` of a `reaction_added` / `reaction_removed` event callback. Its id is
 * team + channel + ts + user + emoji + add/remove + the event's `event_ts` (the same on every
 * redelivery, new for a later add of the same emoji). Reactions on files are ignored; the
 * bot's own reactions (`selfIds`) are ignored.
 */
export function reactionOf(
  raw: unknown,
  selfIds: readonly string[],
  accountId: string | undefined,
): NormalizeResult {
  const { team_id: team, event: e } = parseInbound(reactionCallbackSchema, raw, SLACK_CHANNEL_ID);
  if (e.item.type !== "message" || !e.item.channel || !e.item.ts) {
    return ignore("reaction on a non-message", e.item.type);
  }
  if (selfIds.includes(e.user)) return ignore("own reaction");
  const channel = e.item.channel;
  const removed = e.type === "reaction_removed";
  const reaction: InboundReaction = {
    kind: "reaction",
    id: `${team}:${channel}:${e.item.ts}:${e.user}:${e.reaction}:${removed ? "remove" : "add"}:${e.event_ts}`,
    channel: SLACK_CHANNEL_ID,
    ...(accountId !== undefined ? { accountId } : {}),
    target: { kind: channel.startsWith("D") ? "direct" : "group", id: channel },
    sender: { id: e.user },
    messageId: messageRef(channel, e.item.ts),
    emoji: emojiOfSlackName(e.reaction),
    removed,
    timestamp: Math.round(Number(e.event_ts) * 1_000),
    raw,
  };
  return reaction;
}
