/**
 * Namespaced per-channel options (DESIGN §8 "Shared utilities"): what only one channel
 * understands (Telegram's inline keyboard, Slack's `unfurl_links`) travels on the message under
 * `channelOptions[<channel id>]`, never in `raw`. A message can carry options for several
 * channels; each adapter reads only its own, validated by its own schema.
 *
 * @module
 */
import { type ChannelMessage, HeraldError, joinIssuePath } from "@herald/core";
import type { ZodType } from "zod";

/** A channel's options on a message do not match the channel's schema. */
export class ChannelOptionsError extends HeraldError {
  /** The channel id whose options are wrong. */
  readonly channel: string;
  /** Where, e.g. `channelOptions.telegram.inlineKeyboard.0.0.text`. */
  readonly path: string;

  constructor(channel: string, path: string, message: string) {
    super("HERALD_CHANNEL_OPTIONS", `${path}: ${message}`);
    this.channel = channel;
    this.path = path;
  }
}

/**
 * A copy of `message` with `options` as its options for `channel` (other channels' options are
 * kept; this channel's are replaced).
 *
 * @example
 * await runtime.send(withChannelOptions(message, "telegram", { inlineKeyboard: [[{ text: "Yes", callback_data: "y" }]] }));
 */
export function withChannelOptions<T extends Readonly<Record<string, unknown>>>(
  message: ChannelMessage,
  channel: string,
  options: T,
): ChannelMessage {
  return { ...message, channelOptions: { ...message.channelOptions, [channel]: options } };
}

/**
 * The options of `channel` on `message`, parsed with `schema`.
 *
 * @returns `undefined` when the message has none for this channel.
 * @throws {@link ChannelOptionsError} naming the field path when they do not match `schema`
 *   (an adapter's render turns it into `invalid_payload`: nothing is sent).
 */
export function channelOptionsOf<T>(
  message: ChannelMessage,
  channel: string,
  schema: ZodType<T>,
): T | undefined {
  const options = message.channelOptions?.[channel];
  if (options === undefined) return undefined;
  const parsed = schema.safeParse(options);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = joinIssuePath(["channelOptions", channel, ...(issue?.path ?? [])]);
  throw new ChannelOptionsError(channel, path, issue?.message ?? "invalid");
}
