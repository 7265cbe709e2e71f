/**
 * The live adapter surface (seed `message-lifecycle.md`, "Live context" and "Adapter surface";
 * DESIGN §6): what a channel adds so core can run previews, native streams and typing
 * indicators. Everything here is optional. Preview modes (`partial`, `block`, `progress`) need
 * no live adapter at all — only `send.edit` / `send.delete` and `capabilities.live` — so a plain
 * channel adapter already streams by sending a preview and editing it.
 *
 * Platform calls made here are **ephemeral**: core does not turn them into durable intents or
 * retry them from the queue. The final message is always delivered through the durable send path.
 *
 * @module
 */
import type { ChannelMessage } from "../message/message.ts";
import type { MessageReceiptPart } from "../message/receipt.ts";
import type { MessageSendContext } from "./context.ts";

/**
 * What happens to preview messages when a live session does not end in a final that replaces
 * them:
 * - `delete`: delete (or redact) every preview;
 * - `keep`: leave them visible and record them as the message (the idempotency key then
 *   resolves to the previews' receipt, so a re-run does not answer twice).
 */
export type LivePreviewPolicy = "delete" | "keep";

/**
 * What `finish` is to leave visible: the whole final text, and what the stream already shows.
 * A platform whose stop call *appends* its text (Slack `chat.stopStream` with `markdown_text`)
 * must send only what is not shown yet, or the reply shows twice (PLATFORMS §8, case C24):
 * {@link unshownStreamText} says what that is, or that the text must be replaced instead.
 */
export type LiveStreamFinal = {
  /** The whole final text (markdown). */
  markdown: string;
  /** What core knows the stream shows: the text `begin` opened it with plus every acknowledged `append`. */
  shown: string;
  /**
   * False when an append's outcome is unknown (it may or may not have landed): the stream
   * shows `shown` or more, so appending the rest could double text; replace it instead.
   */
  shownExact: boolean;
};

/**
 * The text a stop call that appends should carry: the final's part after `shown`, when the
 * stream is known to show exactly `shown` and the final continues it (`""` when it shows all
 * of it already). `undefined` when the shown text is uncertain or the final rewrote it: the
 * adapter must then replace the stream's text (Slack: stop without text, then `chat.update`).
 *
 * @example
 * unshownStreamText({ markdown: "Hello world", shown: "Hello ", shownExact: true }) // → "world"
 * unshownStreamText({ markdown: "Hi there", shown: "Hello ", shownExact: true })     // → undefined
 */
export function unshownStreamText(final: LiveStreamFinal): string | undefined {
  if (!final.shownExact || !final.markdown.startsWith(final.shown)) return undefined;
  return final.markdown.slice(final.shown.length);
}

/**
 * A platform's own streaming API (Slack `chat.startStream` / `appendStream` / `stopStream`).
 * The stream's message is identified by the receipt part `begin` returns; core saves it on the
 * live intent so recovery can finish or delete the stream after a crash.
 *
 * Every call may throw; `send.classifyError` classifies the error like for sends.
 */
export type MessageLiveStreamAdapter = {
  /**
   * Whether this message can be streamed natively (its target, relation and `recipient`:
   * Slack streams only replies in a thread, and needs the recipient outside DMs); when false,
   * mode `native` / `auto` fall back to previews. @defaultValue always true
   */
  supports?(message: ChannelMessage): boolean;
  /** Opens a stream showing `markdown`. @returns the part of the stream's platform message. */
  begin(ctx: MessageSendContext, markdown: string): Promise<MessageReceiptPart>;
  /**
   * Appends `deltaMarkdown` to the stream. Not idempotent: core never replays an append whose
   * outcome is unknown (it stops appending and lets `finish` set the final text).
   */
  append(ctx: MessageSendContext, stream: MessageReceiptPart, deltaMarkdown: string): Promise<void>;
  /**
   * Stops the stream. With `final`, the stream must end up showing exactly `final.markdown`:
   * a platform whose stop appends sends only {@link unshownStreamText}`(final)`, or replaces
   * the text when that is undefined. Without it (cleanup), the text stays as it is. Must be
   * idempotent: finishing a finished stream again succeeds (recovery relies on it).
   */
  finish(
    ctx: MessageSendContext,
    stream: MessageReceiptPart,
    final?: LiveStreamFinal,
  ): Promise<MessageReceiptPart>;
};

/**
 * A typing / "working…" indicator (Telegram `sendChatAction`, Matrix typing, Discord typing).
 * Core repeats `start` every `refreshMs` until the session ends or its hard TTL passes, never
 * awaits these calls on the send path, and ignores their failures.
 */
export type MessageTypingAdapter = {
  /** Shows the indicator once (the platform lets it lapse by itself after a few seconds). */
  start(ctx: MessageSendContext): Promise<void>;
  /** Hides it at once, on platforms that can (Matrix `typing: false`). */
  stop?(ctx: MessageSendContext): Promise<void>;
  /**
   * How often `start` is repeated while the indicator should stay up, in milliseconds (a little
   * under the platform's own lapse: 4_000 for Telegram's 5 s action).
   */
  refreshMs: number;
};

/** Live-specific behaviour of a channel. */
export type MessageLiveAdapter = {
  /** The platform's native streaming API, used by live mode `native`. */
  stream?: MessageLiveStreamAdapter;
  /** A typing indicator, shown while a live session runs (and by `runtime.typing`). */
  typing?: MessageTypingAdapter;
  /** Channel defaults for preview messages; a live session's options override them. */
  previews?: {
    /**
     * What `cancel()` and a final that fails terminally do with previews.
     * @defaultValue "delete" ("keep" in `block` mode, whose messages are finished content)
     */
    onCancel?: LivePreviewPolicy;
    /**
     * What crash recovery does with the previews of a session whose final was never asked for
     * (the final text is unknown after a crash).
     * @defaultValue "delete" ("keep" in `block` mode)
     */
    onRecover?: LivePreviewPolicy;
    /**
     * Age of the first preview, in milliseconds, after which the final is sent as a fresh
     * message (so the user is notified and sees it at the bottom) and the previews are deleted
     * once it is accepted. Telegram's preview streams use about a minute.
     * @defaultValue undefined — never stale
     */
    staleAfterMs?: number;
  };
};
