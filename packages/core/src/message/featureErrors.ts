/**
 * Typed errors of the features beyond text ([H23]; PLATFORMS.md §10): a feature the channel
 * cannot do, a DM the platform will not open, a file over the platform's limit.
 *
 * @module
 */
import { HeraldError } from "../errors.ts";

/** The features a channel may lack, as named in errors and docs. */
export type ChannelFeature =
  | "reactions"
  | "reactions.remove"
  | "direct_messages"
  | "attachments.upload"
  | "attachments.receive"
  | "actions"
  | "ephemeral"
  | "history"
  | "history.thread";

/**
 * The channel cannot do `feature` at all (the platform has no API for it, e.g. ephemeral
 * replies on Telegram, history on Telegram). Code `HERALD_NOT_SUPPORTED`; nothing was sent.
 * Distinct from `NotImplementedError` (the platform can, herald does not yet).
 */
export class NotSupportedError extends HeraldError {
  readonly feature: ChannelFeature | string;
  readonly channel: string;
  constructor(feature: ChannelFeature | string, channel: string, reason = "") {
    super(
      "HERALD_NOT_SUPPORTED",
      `channel ${channel} does not support ${feature}${reason ? `: ${reason}` : ""}`,
    );
    this.feature = feature;
    this.channel = channel;
  }
}

/**
 * The platform will not open a direct chat with `userId` (code `HERALD_DM_UNAVAILABLE`), e.g.
 * `reason: "user_never_started_bot"` on Telegram (a bot may only write to users who wrote to it
 * first), or the user blocks DMs from apps.
 */
export class DirectMessageUnavailableError extends HeraldError {
  readonly channel: string;
  readonly userId: string;
  readonly reason: string;
  constructor(channel: string, userId: string, reason: string, options?: ErrorOptions) {
    super(
      "HERALD_DM_UNAVAILABLE",
      `cannot open a direct message with user ${userId} on ${channel}: ${reason}`,
      options,
    );
    this.channel = channel;
    this.userId = userId;
    this.reason = reason;
  }
}

/**
 * A file is larger than the channel accepts (code `HERALD_ATTACHMENT_TOO_LARGE`): thrown before
 * any upload (outbound, against `capabilities.attachments.maxUploadBytes`) or while streaming an
 * inbound file past the caller's `maxBytes` cap. Sizes in bytes. The file's name is `fileName`
 * (`name` is the error class name, as on every `Error`).
 */
export class AttachmentTooLargeError extends HeraldError {
  readonly fileName: string;
  readonly sizeBytes: number;
  readonly maxBytes: number;
  readonly channel: string;
  constructor(fields: { name: string; sizeBytes: number; maxBytes: number; channel: string }) {
    super(
      "HERALD_ATTACHMENT_TOO_LARGE",
      `attachment "${fields.name}" is ${fields.sizeBytes} bytes, over the ${fields.maxBytes}-byte limit of ${fields.channel}`,
    );
    this.fileName = fields.name;
    this.sizeBytes = fields.sizeBytes;
    this.maxBytes = fields.maxBytes;
    this.channel = fields.channel;
  }
}
