/**
 * Normalizing Slack events (DESIGN §5; seed "Receive context"). One platform message is one
 * herald message whatever event type or delivery brought it: its identity is **team + channel +
 * ts** (C22) — never the `event_id` or a retry header, which change on every delivery — so the
 * `message` and `app_mention` events of one message and every redelivery are one turn.
 *
 * - `message` (plain, `bot_message`, `thread_broadcast`, `file_share`, `me_message`) and
 *   `app_mention` → a message. A reply in a thread gets the root's `ts` as its target's
 *   `threadId`; every message's `threadAnchor` is its thread root (its own `ts` at top level).
 * - `message_changed` → a `message_edited` event, never a turn (C23) — unless `editPolicy` is
 *   `"mention-added"`, the editor is a person and the edit adds a mention of the bot: then the
 *   edited message is a message with the **original** identity (answered at most once).
 *   The bot's own edits are ignored (C10).
 * - `message_deleted` → a `message_deleted` event; `channel_join` / `channel_leave` → member
 *   events; other subtypes and event types are ignored with a reason.
 * - slash commands (form bodies) → a message addressed to the bot.
 *
 * Own echoes (C10): the bot's `user`, `bot_id` and `app_id` (from `auth.test`) are its self ids,
 * and a message carrying herald's metadata from this bot is flagged `isSelf` — core drops both
 * before any routing. Other bots follow `allowBots`.
 *
 * @module
 */
import {
  type ChannelMessage,
  type InboundEvent,
  ignore,
  type MessageEventClass,
  type MessageReceiveAdapter,
  type MessageTarget,
  type NormalizeResult,
  parseInbound,
  ReceiveValidationError,
} from "@herald/plugin-sdk/channel-message";
import type { SlackIdentity } from "./account.ts";
import { SLACK_CHANNEL_ID } from "./account.ts";
import { actionOf } from "./actions.ts";
import type { SlackConfig } from "./config.ts";
import {
  eventCallbackSchema,
  messageCallbackSchema,
  type SlackMessageEvent,
  type SlackMessageObject,
  slashCommandSchema,
} from "./events.ts";
import type { IdentityCell } from "./identity.ts";
import { GATEWAY_FAILURE_EVENT_TYPE, HERALD_EVENT_TYPE } from "./origin.ts";
import { isReactionEvent, reactionOf } from "./reactions.ts";
import { messageRef } from "./target.ts";

/** Subtypes that are a person's or a bot's message. */
const MESSAGE_SUBTYPES = new Set([
  undefined,
  "bot_message",
  "thread_broadcast",
  "file_share",
  "me_message",
]);

/** Slack's mrkdwn entities back to text (only these three are escaped). */
function decodeEntities(text: string): string {
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

/** Seconds-with-fraction `ts` → epoch ms. */
function msOf(ts: string): number {
  return Math.round(Number(ts) * 1_000);
}

function mentions(text: string, me: SlackIdentity): boolean {
  return text.includes(`<@${me.userId}>`) || text.includes(`<@${me.userId}|`);
}

function isOwn(m: SlackMessageObject, me: SlackIdentity): boolean {
  if (m.user === me.userId || m.bot_id === me.botId) return true;
  if (me.appId !== undefined && m.app_id === me.appId) return true;
  // herald's own mark from this app, even when Slack left out the ids.
  const type = m.metadata?.event_type;
  return (
    (type === HERALD_EVENT_TYPE || type === GATEWAY_FAILURE_EVENT_TYPE) &&
    m.app_id !== undefined &&
    m.app_id === me.appId
  );
}

/** Whether a conversation is a DM (`channel_type` `im`, else a `D…` id). */
function isDirect(channel: string, channelType: string | undefined): boolean {
  return channelType === "im" || (channelType === undefined && channel.startsWith("D"));
}

function targetOf(
  channel: string,
  channelType: string | undefined,
  m: SlackMessageObject,
): MessageTarget {
  const direct = isDirect(channel, channelType);
  if (m.thread_ts && m.thread_ts !== m.ts) {
    return { kind: "thread", id: channel, parentId: channel, threadId: m.thread_ts };
  }
  return { kind: direct ? "direct" : "group", id: channel };
}

/** The herald message of a Slack message object in `channel` of `team` (history reads it too). */
export function messageOf(
  team: string,
  channel: string,
  channelType: string | undefined,
  m: SlackMessageObject,
  me: SlackIdentity,
  raw: unknown,
  accountId: string | undefined,
  eventType: string,
): ChannelMessage {
  const text = decodeEntities(m.text ?? "");
  const isBot = m.bot_id !== undefined || m.subtype === "bot_message";
  const senderId = m.user ?? m.bot_id ?? "unknown";
  return {
    id: `${SLACK_CHANNEL_ID}:${team}:${channel}:${m.ts}`,
    channel: SLACK_CHANNEL_ID,
    ...(accountId !== undefined ? { accountId } : {}),
    direction: "inbound",
    target: targetOf(channel, channelType, m),
    sender: {
      id: senderId,
      isBot,
      ...(isOwn(m, me) ? { isSelf: true } : {}),
      ...(m.username ? { displayName: m.username } : {}),
    },
    body: { markdown: text, plain: text },
    platformMessageId: messageRef(channel, m.ts),
    threadAnchor: { threadId: m.thread_ts ?? m.ts },
    timestamp: msOf(m.ts),
    mentions: { self: eventType === "app_mention" || mentions(m.text ?? "", me) },
    raw,
  };
}

function eventOf(
  type: InboundEvent["type"],
  id: string,
  target: MessageTarget,
  raw: unknown,
  accountId: string | undefined,
  extra: Partial<InboundEvent> = {},
): InboundEvent {
  return {
    kind: "event",
    type,
    id,
    channel: SLACK_CHANNEL_ID,
    ...(accountId !== undefined ? { accountId } : {}),
    target,
    raw,
    ...extra,
  };
}

/** What the receive adapter needs. */
export type ReceiveDeps = {
  identity: IdentityCell;
  config: Pick<SlackConfig, "editPolicy">;
};

/** The receive adapter (see the module notes). */
export function createReceive(deps: ReceiveDeps): MessageReceiveAdapter {
  const { identity, config } = deps;

  function edited(
    team: string,
    e: SlackMessageEvent,
    me: SlackIdentity,
    raw: unknown,
    accountId: string | undefined,
  ): NormalizeResult {
    const now = e.message;
    if (!now) return ignore("malformed edit", "message_changed without message");
    if (isOwn(now, me)) return ignore("own edit");
    const before = e.previous_message;
    if (before?.text !== undefined && before.text === now.text) {
      return ignore("unchanged edit", "metadata, reply counts or attachments changed");
    }
    const message = messageOf(team, e.channel, e.channel_type, now, me, raw, accountId, "message");
    const addsMention =
      message.mentions?.self === true && !(before?.text && mentions(before.text, me));
    const byPerson = now.bot_id === undefined && now.subtype !== "bot_message";
    if (config.editPolicy === "mention-added" && addsMention && byPerson) return message;
    const editTs = now.edited?.ts ?? e.event_ts ?? e.ts;
    return eventOf(
      "message_edited",
      `message_edited:${team}:${e.channel}:${now.ts}:${editTs}`,
      message.target,
      raw,
      accountId,
      {
        platformMessageId: messageRef(e.channel, now.ts),
        message,
        ...(message.sender ? { actor: message.sender } : {}),
        timestamp: msOf(editTs),
      },
    );
  }

  function fromEvent(
    team: string,
    e: SlackMessageEvent,
    me: SlackIdentity,
    raw: unknown,
    accountId: string | undefined,
  ): NormalizeResult {
    const target = targetOf(e.channel, e.channel_type, e);
    switch (e.subtype) {
      case "message_changed":
        return edited(team, e, me, raw, accountId);
      case "message_deleted": {
        const ts = e.deleted_ts ?? e.previous_message?.ts ?? e.ts;
        return eventOf(
          "message_deleted",
          `message_deleted:${team}:${e.channel}:${ts}`,
          target,
          raw,
          accountId,
          {
            platformMessageId: messageRef(e.channel, ts),
            timestamp: msOf(e.ts),
          },
        );
      }
      case "channel_join":
      case "channel_leave": {
        const who = e.user ?? "unknown";
        return eventOf(
          e.subtype === "channel_join" ? "member_joined" : "member_left",
          `${e.subtype}:${team}:${e.channel}:${who}:${e.ts}`,
          target,
          raw,
          accountId,
          { members: [{ id: who }], timestamp: msOf(e.ts) },
        );
      }
    }
    if (!MESSAGE_SUBTYPES.has(e.subtype)) return ignore("service message", e.subtype);
    return messageOf(team, e.channel, e.channel_type, e, me, raw, accountId, e.type);
  }

  return {
    async normalize(raw, ctx): Promise<NormalizeResult> {
      const me = await identity.get();
      const body = raw as { type?: unknown; command?: unknown } | null;
      if (body && typeof body === "object" && typeof body.command === "string") {
        const c = parseInbound(slashCommandSchema, raw, SLACK_CHANNEL_ID);
        const text = `${c.command}${c.text ? ` ${c.text}` : ""}`;
        return {
          id: `${SLACK_CHANNEL_ID}:${c.team_id}:command:${c.trigger_id}`,
          channel: SLACK_CHANNEL_ID,
          ...(ctx.accountId !== undefined ? { accountId: ctx.accountId } : {}),
          direction: "inbound",
          target: { kind: c.channel_id.startsWith("D") ? "direct" : "group", id: c.channel_id },
          sender: {
            id: c.user_id,
            isBot: false,
            ...(c.user_name ? { displayName: c.user_name } : {}),
          },
          body: { markdown: text, plain: text },
          platformMessageId: `command:${c.trigger_id}`,
          timestamp: ctx.receivedAt,
          // A slash command is addressed to the app.
          mentions: { self: true },
          raw,
        };
      }
      if (typeof raw === "string") {
        // The receiver hands over a body that is not UTF-8 JSON (or form fields) as text.
        throw new ReceiveValidationError(SLACK_CHANNEL_ID, [
          { path: "(root)", message: "the body is not UTF-8 JSON, a slash command or a payload" },
        ]);
      }
      // Slack's certificate check of a slash command URL (form fields, no type).
      if (body && typeof body === "object" && "ssl_check" in body) return ignore("ssl_check");
      // A button click ([H23]): the receiver already answered Slack's 200.
      if (body && typeof body === "object" && body.type === "block_actions") {
        return actionOf(raw, ctx.accountId);
      }
      // Other typed payloads (interactivity, …) are not events; a payload without a type is
      // not something Slack sends and is dead-lettered by the envelope check below.
      if (
        body &&
        typeof body === "object" &&
        !Array.isArray(body) &&
        typeof body.type === "string" &&
        body.type !== "event_callback"
      ) {
        return ignore("not an event", body.type);
      }
      const envelope = parseInbound(eventCallbackSchema, raw, SLACK_CHANNEL_ID);
      // Another workspace's event reached this account (one Request URL, no route for it).
      if (envelope.team_id !== me.teamId) return ignore("other workspace", envelope.team_id);
      const type = envelope.event.type;
      if (isReactionEvent(type)) {
        return reactionOf(
          raw,
          [me.userId, me.botId, ...(me.appId ? [me.appId] : [])],
          ctx.accountId,
        );
      }
      if (type !== "message" && type !== "app_mention")
        return ignore("event type not handled", type);
      const { event } = parseInbound(messageCallbackSchema, raw, SLACK_CHANNEL_ID);
      return fromEvent(envelope.team_id, event, me, raw, ctx.accountId);
    },

    classify(message, raw): MessageEventClass {
      const event = (
        raw as {
          event?: {
            type?: string;
            user?: string;
            bot_id?: string;
            app_id?: string;
            channel?: string;
            channel_type?: string;
          };
        } | null
      )?.event;
      // A thread in a DM is still the DM (its target kind is "thread"): not roomish.
      const direct =
        message.target.kind === "direct" ||
        (typeof event?.channel === "string" && isDirect(event.channel, event.channel_type));
      const eventType =
        event?.type ??
        (message.platformMessageId?.startsWith("command:") ? "slash_command" : "message");
      const ids = [event?.user, event?.bot_id, event?.app_id, message.sender?.id].filter(
        (x): x is string => typeof x === "string" && x !== "",
      );
      return {
        eventType,
        eventTypes: [eventType],
        isBotAuthor: message.sender?.isBot === true,
        isRoomish: !direct,
        mentionsSelf: message.mentions?.self === true,
        authorIds: [...new Set(ids)],
      };
    },

    dedupeIdentity(message) {
      // `slack:<team>:<channel>:<ts>` (or `slack:<team>:command:<trigger>`): team + channel + ts.
      return message.id.slice(SLACK_CHANNEL_ID.length + 1);
    },

    selfIds() {
      const me = identity.known;
      return me ? [me.userId, me.botId, ...(me.appId ? [me.appId] : [])] : [];
    },
  };
}
