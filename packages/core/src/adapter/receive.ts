/**
 * The receive side of the channel adapter surface (seed `message-lifecycle.md`, "Adapter
 * surface" and "Receive context"; DESIGN §5). An adapter turns one raw platform event into a
 * {@link ChannelMessage} and states platform facts (bot author, room shape, mentions, its own
 * ids); core owns every decision made from them: echo drop, dedupe, authorization, ack.
 *
 * @module
 */
import type { ChannelMessage, MessageActor, MessageTarget } from "../message/message.ts";
import type { ReceiveAckPolicy } from "../message/policy.ts";
import type { FetchAttachment } from "./features.ts";

/**
 * `normalize`'s answer for a platform event that is deliberately not processed (a service
 * message, an update kind the bot does not handle). Core logs it and counts it (outcome
 * `ignored`, with the reason) and acks it; it is never dead-lettered and never silent.
 * Build it with `ignore(reason)`.
 */
export type InboundIgnore = {
  kind: "ignore";
  /** Why, in a few words; a metric label, so keep it to a small fixed set per adapter. */
  reason: string;
  /** Free text for the log line (e.g. the update kind). */
  detail?: string;
};

/** The non-message events a channel can report (DESIGN §5). */
export type InboundEventType =
  | "member_joined"
  | "member_left"
  | "message_deleted"
  | "message_edited"
  | "reaction_added"
  | "reaction_removed";

/**
 * A typed non-message event from `normalize` (membership, deletes, edits, reactions). Core
 * dedupes it by `id`, hands it to the handlers subscribed to its `type` (gateway
 * `bot.onEvent(type, fn)`), and acks it; a throwing handler releases the dedupe lease so a
 * redelivery runs again. It never starts a turn.
 */
export type InboundEvent = {
  kind: "event";
  type: InboundEventType;
  /**
   * The dedupe identity of the event, unique per channel and account and the same on every
   * redelivery, e.g. `member_joined:${chat}:${user}:${date}`.
   */
  id: string;
  /** Channel id (the adapter's). */
  channel: string;
  accountId?: string;
  /** Where it happened. */
  target: MessageTarget;
  /** Who did it (the remover, the editor, the reacting user), when known. */
  actor?: MessageActor;
  /** `member_joined` / `member_left`: who joined or left. */
  members?: MessageActor[];
  /** The message concerned (deleted, edited, reacted to), as its platform id. */
  platformMessageId?: string;
  /** `message_edited`: the message as it reads now. */
  message?: ChannelMessage;
  /** `reaction_added` / `reaction_removed`: the reaction (emoji or its name). */
  reaction?: string;
  /** Epoch milliseconds. */
  timestamp?: number;
  /** The platform payload; must be JSON-serializable. */
  raw?: unknown;
};

/**
 * A reaction added to or removed from a message ([H23]). Deduped by `id` (unique per channel
 * and account, the same on every redelivery, e.g. `${chat}:${messageId}:${user}:${emoji}:add:${ts}`),
 * then handed once to the reaction handler (gateway `onReaction`); never starts a turn.
 */
export type InboundReaction = {
  kind: "reaction";
  id: string;
  channel: string;
  accountId?: string;
  /** The conversation of the reacted-to message. */
  target: MessageTarget;
  /** Who reacted. */
  sender: MessageActor;
  /** Platform id of the reacted-to message. */
  messageId: string;
  /** Unicode emoji, or the platform's name for it. */
  emoji: string;
  /** `true` when the reaction was taken back. */
  removed: boolean;
  /** Epoch milliseconds. */
  timestamp: number;
  /** The platform payload; must be JSON-serializable. */
  raw?: unknown;
};

/**
 * A button click ([H23]). The platform's ack (Slack 3 s HTTP 200, Discord deferral type 6,
 * Telegram `answerCallbackQuery`, Google Chat's synchronous response) is done by the
 * adapter/receiver in time, before the handler runs. Deduped by `id` (the platform's
 * interaction / callback id), handed once to the action handler (gateway `onAction`).
 */
export type InboundAction = {
  kind: "action";
  id: string;
  channel: string;
  accountId?: string;
  /** Where the clicked message is. */
  target: MessageTarget;
  /** Who clicked. */
  sender: MessageActor;
  /** The button's `MessageAction.id`. */
  actionId: string;
  /** The button's `value`, when it had one. */
  value?: string;
  /** Platform id of the message carrying the button. */
  messageId?: string;
  /** Epoch milliseconds. */
  timestamp: number;
  /** The platform payload; must be JSON-serializable. */
  raw?: unknown;
  /** How the receiver acknowledged the click, for logs (`"deferred"`, `"answered"`). */
  ack?: string;
};

/** A reaction or a button click: inbound interactions that are not messages. */
export type InboundInteraction = InboundReaction | InboundAction;

/**
 * What `normalize` returns: a message, a typed event, a reaction, a button click, or an
 * explicit ignore.
 */
export type NormalizeResult =
  | ChannelMessage
  | InboundEvent
  | InboundReaction
  | InboundAction
  | InboundIgnore;

/** What core hands {@link MessageReceiveAdapter.normalize} besides the raw payload. */
export type MessageNormalizeContext = {
  /** Channel id the event arrived on (the adapter's id). */
  channel: string;
  /** Account (bot) the event was delivered to, when the receiver knows it. */
  accountId?: string;
  /** Epoch milliseconds when the receiver got the event. */
  receivedAt: number;
};

/**
 * Platform facts about one inbound event, computed by the adapter (or by core's default from
 * the normalized message). Several event types of one platform message (Slack `message` +
 * `app_mention`) are merged into one class: booleans are OR-ed, `eventTypes` united.
 */
export type MessageEventClass = {
  /** The platform's event type of this delivery, e.g. `"message"`, `"app_mention"`, `"message_changed"`. */
  eventType: string;
  /** Every event type seen for this platform message so far (merged), first one first. */
  eventTypes: readonly string[];
  /** The platform marks the author as a bot or app. */
  isBotAuthor: boolean;
  /** The message is in a group, channel or thread, not a 1:1 direct chat. */
  isRoomish: boolean;
  /** The message mentions this bot (by id, reply-to-bot, or an app-mention event). */
  mentionsSelf: boolean;
  /** The event reports an edit of an existing message (Slack `message_changed`, Telegram `edited_message`). */
  isEdit?: boolean;
  /**
   * Every id naming the author, in the platform's spelling (Slack `user` and `bot_id`, a
   * Discord webhook id…). Compared against {@link MessageReceiveAdapter.selfIds}.
   * @defaultValue `[message.sender.id]`
   */
  authorIds?: readonly string[];
};

/** An adapter's own authorization verdict, applied after core's `allowBots` and mention checks. */
export type MessagePreflightResult = { action: "accept" } | { action: "drop"; reason: string };

/**
 * The receive adapter of a channel.
 *
 * @typeParam TRaw - the platform payload type the adapter accepts (core passes `unknown`;
 * validate it in `normalize`).
 */
export type MessageReceiveAdapter<TRaw = unknown> = {
  /**
   * Validates and converts one raw platform event into an inbound {@link ChannelMessage}
   * (`direction: "inbound"`, `channel` = the adapter's id, `platformMessageId` set), a typed
   * {@link InboundEvent} (`member_joined`, `message_deleted`, …), or `ignore(reason)` for an
   * event the bot does not process (logged and counted, never dead-lettered).
   *
   * @throws `ReceiveValidationError` (use `parseInbound(schema, raw, channel)`) naming the
   * field path, e.g. `message.chat.id`; core dead-letters the raw payload.
   */
  normalize(raw: TRaw, ctx: MessageNormalizeContext): NormalizeResult | Promise<NormalizeResult>;
  /**
   * Computes the event class. Without it core derives one from the message: `sender.isBot`,
   * `target.kind !== "direct"`, `mentions.self`, event type `"message"`.
   */
  classify?(message: ChannelMessage, raw: TRaw): MessageEventClass | Promise<MessageEventClass>;
  /**
   * The dedupe identity: the platform *message* identity, the same for every event type and
   * every redelivery of one message (never a delivery, retry or update id). Must be unique per
   * channel and account, e.g. Telegram `${chat.id}:${message_id}`, Slack `${channel}:${ts}`.
   * An edit is its own identity (e.g. `${channel}:${ts}:edit:${event_ts}`).
   * @defaultValue `message.platformMessageId ?? message.id`
   */
  dedupeIdentity?(message: ChannelMessage, event: MessageEventClass): string;
  /**
   * This bot's own ids on the platform (user id, bot id, app id) for `accountId`. Messages
   * authored by any of them are dropped before dedupe, whatever the mention or `allowBots`
   * setting.
   */
  selfIds?(accountId: string | undefined): readonly string[];
  /**
   * Whether the platform's ids compare case-insensitively (self ids and loop-guard pairs are
   * then compared in lower case).
   * @defaultValue false
   */
  idsCaseInsensitive?: boolean;
  /** Extra platform-specific authorization, run after core's own checks. */
  preflight?(
    message: ChannelMessage,
    event: MessageEventClass,
  ): MessagePreflightResult | Promise<MessagePreflightResult>;
  /**
   * When the receiver may answer the platform for this event, e.g. `immediate` with reason
   * `webhook-timeout` for a webhook that must answer within seconds. A receiver may override it
   * per delivery; otherwise the runtime's default applies.
   */
  ackPolicy?(message: ChannelMessage, event: MessageEventClass): ReceiveAckPolicy;
  /**
   * Streams an inbound attachment (its `platformFileId` / `url`) with the platform's auth
   * ([H23]). Errors with `AttachmentTooLargeError` past `options.maxBytes`; never buffers the
   * whole file. Absent: the bot API's `file.fetch()` throws `NotSupportedError`.
   */
  fetchAttachment?: FetchAttachment;
};
