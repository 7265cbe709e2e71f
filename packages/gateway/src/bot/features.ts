/**
 * The bot API beyond text ([H23]; docs/concepts/features.md): reactions, rich replies (files
 * and buttons), ephemeral replies, history, inbound files, DMs, and the click and reaction
 * handlers. Every durable call's idempotency key derives from what caused it (the inbound
 * message, the click), so a handler run again after a crash never reacts, replies or DMs twice.
 *
 * @module
 */
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import type {
  ChannelMessage,
  InboundAction,
  InboundReaction,
  MessageAction,
  MessageActor,
  MessageAttachment,
  MessageReceipt,
  MessageRuntime,
  MessageTarget,
} from "@herald/core";

/** A file to send: a local `path`, a `url`, or a `platformFileId`; `kind` defaults to `file`. */
export type OutboundFile = Omit<MessageAttachment, "kind"> & { kind?: MessageAttachment["kind"] };

/** A reply with text, files and buttons (`turn.reply({ text, files, actions })`). */
export type ReplyContent = {
  /** Markdown text (the caption when there are files). */
  text?: string;
  /** Files, each delivered as its own unit with its own key and receipt part. */
  files?: OutboundFile[];
  /** Buttons and links; clicks arrive at `gateway.onAction`. */
  actions?: MessageAction[];
};

/** An inbound file (`turn.files`), streamed on demand. */
export type InboundFile = {
  name: string;
  mimeType: string | undefined;
  /** Size in bytes, when the platform says. */
  sizeBytes: number | undefined;
  /** The attachment as the adapter normalized it. */
  attachment: MessageAttachment;
  /**
   * Streams the file with the platform's auth, never buffering it whole.
   * @param options.maxBytes - error with `AttachmentTooLargeError` past this many bytes
   *   (default {@link DEFAULT_MAX_INBOUND_FILE_BYTES}).
   * @throws NotSupportedError when the channel cannot fetch files.
   */
  fetch(options?: { maxBytes?: number; signal?: AbortSignal }): Promise<ReadableStream<Uint8Array>>;
};

/** Default byte cap of `InboundFile.fetch`: 25 MiB. */
export const DEFAULT_MAX_INBOUND_FILE_BYTES = 25 * 1024 * 1024;

/** A button click as the bot sees it (`gateway.onAction`). */
export type BotAction = {
  /** The clicked button's `MessageAction.id`. */
  readonly actionId: string;
  readonly value: string | undefined;
  /** Who clicked. */
  readonly user: MessageActor;
  /** The normalized click. */
  readonly action: InboundAction;
  /**
   * Replies in the conversation of the clicked message, durably; the `n`-th reply of one click
   * has one key (`action:<channel>:<account>:<click id>:<n>`), so a rerun never answers twice.
   */
  reply(content: string | ReplyContent): Promise<MessageReceipt>;
  /** Replies only the clicking user sees. @throws NotSupportedError off Slack / Google Chat / qa. */
  replyEphemeral(text: string): Promise<MessageReceipt>;
};

/** A reaction as the bot sees it (`gateway.onReaction`). */
export type BotReaction = {
  readonly emoji: string;
  readonly removed: boolean;
  /** Who reacted. */
  readonly user: MessageActor;
  /** Platform id of the reacted-to message. */
  readonly messageId: string;
  readonly reaction: InboundReaction;
};

/** Handles one button click, once per click (deduped). Throwing lets it be redelivered. */
export type BotActionHandler = (action: BotAction) => void | Promise<void>;
/** Handles one reaction, once per reaction (deduped). Throwing lets it be redelivered. */
export type BotReactionHandler = (reaction: BotReaction) => void | Promise<void>;

/** A reply's content as a message's body, attachments and actions (file sizes read from disk). */
export async function contentOf(
  content: string | ReplyContent,
): Promise<Pick<ChannelMessage, "body" | "attachments" | "actions">> {
  if (typeof content === "string") return { body: { markdown: content } };
  const attachments = await Promise.all((content.files ?? []).map(fileOf));
  return {
    ...(content.text !== undefined ? { body: { markdown: content.text } } : {}),
    ...(attachments.length ? { attachments } : {}),
    ...(content.actions?.length ? { actions: content.actions } : {}),
  };
}

async function fileOf(file: OutboundFile): Promise<MessageAttachment> {
  const out: MessageAttachment = { ...file, kind: file.kind ?? "file" };
  if (file.path !== undefined) {
    if (out.name === undefined) out.name = basename(file.path);
    if (out.sizeBytes === undefined) out.sizeBytes = (await stat(file.path)).size;
  }
  return out;
}

/** The inbound files of a message, for `turn.files`. */
export function inboundFiles(runtime: MessageRuntime, message: ChannelMessage): InboundFile[] {
  return (message.attachments ?? []).map((attachment, i) => ({
    name: attachment.name ?? `attachment-${i + 1}`,
    mimeType: attachment.mimeType,
    sizeBytes: attachment.sizeBytes,
    attachment,
    fetch: (options = {}) =>
      runtime.fetchAttachment({
        channel: message.channel,
        ...(message.accountId === undefined ? {} : { accountId: message.accountId }),
        attachment,
        maxBytes: options.maxBytes ?? DEFAULT_MAX_INBOUND_FILE_BYTES,
        ...(options.signal ? { signal: options.signal } : {}),
      }),
  }));
}

/** Builds the bot's view of a click. */
export function botAction(runtime: MessageRuntime, action: InboundAction): BotAction {
  let replies = 0;
  let ephemerals = 0;
  const address = {
    channel: action.channel,
    ...(action.accountId === undefined ? {} : { accountId: action.accountId }),
  };
  const base = `action:${action.channel}:${action.accountId ?? ""}:${action.id}`;
  return {
    actionId: action.actionId,
    value: action.value,
    user: action.sender,
    action,
    async reply(content) {
      const n = ++replies;
      const key = `${base}:${n}`;
      return runtime.send(
        {
          id: key,
          ...address,
          direction: "outbound",
          target: action.target,
          ...(await contentOf(content)),
          ...(action.messageId ? { relation: { kind: "reply", replyToId: action.messageId } } : {}),
        },
        { idempotencyKey: key, keyMatch: "slot" },
      );
    },
    replyEphemeral(text) {
      return runtime.sendEphemeral({
        ...address,
        target: action.target,
        userId: action.sender.id,
        message: { id: `${base}:ephemeral:${++ephemerals}`, body: { markdown: text } },
      });
    },
  };
}

/** Builds the bot's view of a reaction. */
export function botReaction(reaction: InboundReaction): BotReaction {
  return {
    emoji: reaction.emoji,
    removed: reaction.removed,
    user: reaction.sender,
    messageId: reaction.messageId,
    reaction,
  };
}

/**
 * Sends into the DM with a user: opens (or finds) it, then sends durably. The default key names
 * the DM's `n`-th message from this call site only when you pass `idempotencyKey`; without one
 * each call is a new message.
 */
export async function sendDirect(
  runtime: MessageRuntime,
  to: { channel: string; accountId?: string; userId: string },
  content: string | ReplyContent,
  options: { idempotencyKey?: string } = {},
): Promise<MessageReceipt> {
  const target: MessageTarget = await runtime.openDirect(to);
  const id = options.idempotencyKey ?? `dm:${to.channel}:${to.userId}:${crypto.randomUUID()}`;
  return runtime.send(
    {
      id,
      channel: to.channel,
      ...(to.accountId === undefined ? {} : { accountId: to.accountId }),
      direction: "outbound",
      target,
      ...(await contentOf(content)),
    },
    { idempotencyKey: id },
  );
}

/**
 * The root message of the turn a click or a reaction runs in (the ledger records it like a
 * message's turn, and everything its handlers send carries the turn id): id
 * `action:<click id>` / `reaction:<id>`, a body saying what happened.
 */
export function interactionRoot(i: InboundAction | InboundReaction): ChannelMessage {
  return {
    id: `${i.kind}:${i.id}`,
    channel: i.channel,
    ...(i.accountId === undefined ? {} : { accountId: i.accountId }),
    direction: "inbound",
    target: i.target,
    sender: i.sender,
    body: {
      markdown:
        i.kind === "action"
          ? `[clicked ${i.actionId}]`
          : `[${i.removed ? "removed" : "added"} reaction ${i.emoji}]`,
      literal: true,
    },
    ...(i.messageId !== undefined ? { platformMessageId: i.messageId } : {}),
    timestamp: i.timestamp,
  };
}
