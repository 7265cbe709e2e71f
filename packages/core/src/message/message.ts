/**
 * Platform-neutral message terms (seed `message-lifecycle.md`, "Message terms").
 *
 * Every type here is plain JSON data: no classes, no functions, no `Date`s (times are epoch
 * milliseconds), so a message survives the durable queue and a process restart unchanged.
 *
 * @module
 */
import type { ChannelOptions, MessageCard } from "./card.ts";
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

/** A quoted excerpt a reply points at. */
export type MessageQuote = {
  text: string;
  /** Offset of the quote in the original message, in UTF-16 units. */
  offsetUtf16?: number;
};

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
      threadId?: string;
      quote?: MessageQuote;
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
  /** Mention flags computed by the adapter for inbound messages. */
  mentions?: { self?: boolean; users?: string[] };
  /**
   * A card (rendered natively where the channel has cards, else as its text fallback after the
   * body).
   */
  card?: MessageCard;
  /**
   * Options for particular channels, keyed by channel id (`{ telegram: { inlineKeyboard } }`);
   * each channel reads only its own key. Set and read them with the SDK's `withChannelOptions` /
   * `channelOptionsOf`.
   */
  channelOptions?: ChannelOptions;
  /** The platform payload of an inbound message, kept for adapters; must be JSON-serializable. */
  raw?: unknown;
};
