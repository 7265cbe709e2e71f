/**
 * Platform-neutral message terms (seed `message-lifecycle.md`, "Message terms").
 *
 * Every type here is plain JSON data: no classes, no functions, no `Date`s (times are epoch
 * milliseconds), so a message survives the durable queue and a process restart unchanged.
 *
 * @module
 */
import type { ChannelOptions, MessageCard, MessageCardAction } from "./card.ts";
import type { MessageOrigin } from "./origin.ts";

/** Where a message lives. `id` is the platform's chat / channel / room id. */
export type MessageTarget = {
  /** Room shape: a 1:1 chat, a group chat, a channel, or a thread inside one. */
  kind: "direct" | "group" | "channel" | "thread";
  /** Platform id of the chat, channel or room. */
  id: string;
  /** Human-readable name, for logs and the console only. */
  label?: string;
  /** Workspace / guild / server / space id when the platform has one. */
  spaceId?: string;
  /** Parent channel id when `kind` is `"thread"`. */
  parentId?: string;
  /** Thread, topic or reply-chain id inside `id` (Telegram `message_thread_id`, Slack `thread_ts`). */
  threadId?: string;
  /** The platform's own channel id when it differs from `id` (for example a DM channel). */
  nativeChannelId?: string;
};

/** Who authored a message. */
export type MessageActor = {
  /** Platform user id, in the platform's own spelling. */
  id: string;
  /** Display name, for logs and prompts. */
  displayName?: string;
  /** True when the platform marks the author as a bot or app. */
  isBot?: boolean;
  /** True when the author is this gateway's own account. */
  isSelf?: boolean;
};

/**
 * The text of a message. `markdown` is the source of truth (CommonMark + GFM); `plain` is an
 * optional pre-rendered fallback for channels or notifications without formatting.
 */
export type MessageBody = {
  markdown: string;
  plain?: string;
  /**
   * `markdown` is literal text, not markdown: every channel shows each character as typed
   * (escaped for its dialect, never parsed), e.g. tool output with `*`, `_` or `<b>` in the
   * activity log (DESIGN §7). Renderers build the tree with the SDK's `bodyTree(body)`.
   * @defaultValue false
   */
  literal?: boolean;
};

/** A file, image, voice note or link attached to a message. */
export type MessageAttachment = {
  kind: "image" | "file" | "voice" | "audio" | "video" | "sticker" | "link";
  /** Remote URL (fetched through the guarded fetch helper) or a platform file id. */
  url?: string;
  /** Platform file id, for re-sending without re-uploading. */
  platformFileId?: string;
  /** Local path on the gateway host, for uploads. */
  path?: string;
  name?: string;
  mimeType?: string;
  /** Size in bytes. */
  sizeBytes?: number;
  /** Caption as markdown; adapters split it off when it exceeds the platform's caption limit. */
  caption?: string;
};

/**
 * A button or link under a message ([H23]; the same shape as a card action). A `button`'s `id`
 * comes back as `InboundAction.actionId` when it is clicked (Telegram `callback_data`: at most
 * 64 bytes). Channels without buttons show a text fallback listing the labels.
 */
export type MessageAction = MessageCardAction;

/** A quoted excerpt a reply points at. */
export type MessageQuote = {
  text: string;
  /** Offset of the quote in the original message, in UTF-16 units. */
  offsetUtf16?: number;
};

/**
 * Where a thread under an inbound message lives on its platform (DESIGN §7–8), set by the
 * adapter's `normalize`. Core never derives a thread id from a message id: on Google Chat a
 * message name (`spaces/S/messages/M`) is not a thread name (`spaces/S/threads/T`).
 *
 * | platform | `threadId` |
 * |---|---|
 * | Slack | the root's `ts` (`thread_ts` when the message is a thread reply, else its own `ts`) |
 * | Google Chat | `message.thread.name` (`spaces/S/threads/T`) |
 * | Matrix | the thread root's event id (the message's own id when it is not in a thread) |
 * | Discord | the thread's channel id (a thread started from a message has the message's id) |
 * | Telegram | the forum topic's `message_thread_id`; absent outside topics (no threads there) |
 *
 * Absent when no thread can live under the message (a DM on a platform without threads in
 * DMs, a Telegram group without topics).
 */
export type MessageThreadAnchor = {
  /** The platform's thread id, in the form the adapter's send reads from `target.threadId`. */
  threadId: string;
};

/**
 * Where a reply is shown, relative to the inbound message it answers:
 * - `inline`: in the conversation the inbound was in (its thread, if it was in one), no quote;
 * - `quote`: like `inline`, with the platform's reply reference to `replyToId` (Telegram
 *   `reply_parameters`, Discord `message_reference`, Matrix `m.in_reply_to`);
 * - `thread`: in the thread under the inbound (`threadId` = its {@link MessageThreadAnchor});
 * - `broadcast`: like `thread`, and also shown in the channel (Slack `reply_broadcast`);
 *   channels without it treat it as `thread`.
 *
 * Absent: the channel's default (Telegram and the QA channel quote).
 */
export type ReplyPlacement = "inline" | "quote" | "thread" | "broadcast";

/**
 * How an outbound message relates to other messages. Reply is a relation, not an API root
 * (seed, "Relation").
 */
export type MessageRelation =
  | {
      kind: "reply";
      /** Normalized id of the inbound message this answers. */
      inboundMessageId?: string;
      /** Platform message id to reply to. */
      replyToId?: string;
      /** The thread the reply goes into (with `placement` `thread`: the inbound's anchor). */
      threadId?: string;
      quote?: MessageQuote;
      /** Where the reply is shown. @defaultValue the channel's default */
      placement?: ReplyPlacement;
    }
  | { kind: "followup"; sessionKey?: string; previousMessageId?: string }
  | { kind: "broadcast"; reason?: string }
  | {
      kind: "system";
      reason:
        | "approval"
        | "task"
        | "hook"
        | "cron"
        | "subagent"
        | "message_tool"
        | "cli"
        | "control_ui"
        | "automation"
        | "error";
    };

/**
 * The person an outbound message is for inside a shared conversation, where the platform needs
 * to know (Slack streams: `recipient_user_id` / `recipient_team_id`, required outside DMs).
 */
export type MessageRecipient = {
  /** Platform user id. */
  userId: string;
  /** Workspace / team id of that user (Slack `team`), when the platform has one. */
  teamId?: string;
};

/** A normalized, platform-neutral message, inbound or outbound. */
export type ChannelMessage = {
  /** herald's id for this message (inbound: derived from the platform event; outbound: generated). */
  id: string;
  /** Channel plugin id, e.g. `"telegram"`. */
  channel: string;
  /** Account (bot) id inside the channel, when a gateway runs several. */
  accountId?: string;
  direction: "inbound" | "outbound";
  target: MessageTarget;
  sender?: MessageActor;
  body?: MessageBody;
  attachments?: MessageAttachment[];
  relation?: MessageRelation;
  origin?: MessageOrigin;
  /** Epoch milliseconds. */
  timestamp?: number;
  /** Platform message id of an inbound message. */
  platformMessageId?: string;
  /**
   * Inbound: where a thread under this message lives (set by the adapter's `normalize`);
   * absent when none can. The activity log and `placement: "thread"` replies use it.
   */
  threadAnchor?: MessageThreadAnchor;
  /** Outbound: whom the message is for (live streams on Slack). */
  recipient?: MessageRecipient;
  /** Mention flags computed by the adapter for inbound messages. */
  mentions?: { self?: boolean; users?: string[] };
  /**
   * A card (rendered natively where the channel has cards, else as its text fallback after the
   * body).
   */
  card?: MessageCard;
  /**
   * Buttons and links under the message ([H23]): rendered natively where
   * `capabilities.actions.buttons`, else as a text fallback ("Reply with: Approve / Reject").
   */
  actions?: MessageAction[];
  /**
   * Options for particular channels, keyed by channel id (`{ telegram: { inlineKeyboard } }`);
   * each channel reads only its own key. Set and read them with the SDK's `withChannelOptions` /
   * `channelOptionsOf`.
   */
  channelOptions?: ChannelOptions;
  /** The platform payload of an inbound message, kept for adapters; must be JSON-serializable. */
  raw?: unknown;
};
