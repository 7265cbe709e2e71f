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
import type { LiveMessageState } from "../message/live.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { MessageReceipt, MessageReceiptPart } from "../message/receipt.ts";
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
 * Why a session ends without a final (seed "Live context", `LiveCancelReason`):
 * - `error`: the producer failed; previews follow the `onCancel` policy;
 * - `aborted`: the user or the bot stopped it (or the process did: crash recovery ends an
 *   unfinished session with this reason); `onCancel` policy;
 * - `superseded`: a newer message replaces it; `onCancel` policy;
 * - `silent`: the bot decided not to answer; previews are always deleted.
 */
export type LiveCancelReason = "error" | "aborted" | "silent" | "superseded";

/**
 * One step of a live message (seed "Live context", `LiveMessageUpdate`): what it is to show now
 * and what is new since the last step the platform acknowledged. A platform whose stream call
 * appends (Slack `chat.appendStream`) sends `deltaMarkdown`; one that replaces sends `markdown`.
 */
export type LiveMessageUpdate = {
  /** The whole text the live message is to show after this step (markdown). */
  markdown: string;
  /**
   * The part of `markdown` after what the message already shows (for `begin`: all of it).
   * Core only sends an update that continues the shown text; a rewrite waits for `finalize`.
   */
  deltaMarkdown: string;
};

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

/**
 * Live-specific behaviour of a channel (seed "Live context", `MessageLiveAdapter`).
 *
 * The seed's lifecycle — `begin` / `update` / `finalize` / `cancel` — is the platform's own live
 * message (Slack `chat.startStream` / `appendStream` / `stopStream`), used by live mode `native`
 * and `auto`. Core drives it: it throttles updates, saves the state on the live intent (so
 * recovery can finish or clean up the message after a crash), and commits the receipt
 * `finalize` returns as the final. Give `begin`, `update` and `finalize` together (`cancel` is
 * optional); without them the channel still streams with preview messages (`send.send` +
 * `send.edit`), which need no live adapter at all.
 *
 * Every call may throw; `send.classifyError` classifies the error like for sends.
 *
 * @example
 * ```ts
 * live: {
 *   supports: (message) => message.target.threadId !== undefined,
 *   async begin(ctx, first) {
 *     const ts = await api.startStream(ctx.message.target.id, first.markdown);
 *     return { mode: "native", canFinalizeInPlace: true, receipt: receiptFromParts([{ platformMessageId: ts, kind: "text", index: 0 }], { sentAt: Date.now() }) };
 *   },
 *   async update(ctx, state, step) {
 *     await api.appendStream(state.receipt!.primaryPlatformMessageId!, step.deltaMarkdown);
 *     return state;
 *   },
 *   async finalize(ctx, state, final) {
 *     await api.stopStream(state.receipt!.primaryPlatformMessageId!, unshownStreamText(final));
 *     return state.receipt!;
 *   },
 *   async cancel(ctx, state) {
 *     await api.stopStream(state.receipt!.primaryPlatformMessageId!);
 *   },
 * }
 * ```
 */
export type MessageLiveAdapter = {
  /**
   * Whether this message can be a live message (its target, relation and `recipient`: Slack
   * streams only replies in a thread); when false, mode `native` / `auto` fall back to previews.
   * @defaultValue always true (when `begin` is given)
   */
  supports?(message: ChannelMessage): boolean;
  /**
   * Opens the live message showing `first.markdown`.
   * @returns its state: `mode: "native"` and the `receipt` naming the platform message (its
   *   `parts[0]`; without a receipt core cannot update, finish or delete it).
   */
  begin?(ctx: MessageSendContext, first: LiveMessageUpdate): Promise<LiveMessageState>;
  /**
   * Moves the live message on by `update` (append `deltaMarkdown`, or show `markdown`). Not
   * replayed when its outcome is unknown: core stops updating and lets `finalize` set the text.
   * @returns the state after the step (return `state`: core keeps naming the message by the
   *   receipt `begin` returned).
   */
  update?(
    ctx: MessageSendContext,
    state: LiveMessageState,
    update: LiveMessageUpdate,
  ): Promise<LiveMessageState>;
  /**
   * Ends the live message showing exactly `final.markdown`: a platform whose stop call appends
   * sends only {@link unshownStreamText}`(final)`, or replaces the text when that is undefined.
   * Must be idempotent (recovery may finalize a finalized message again).
   * @returns the receipt core commits as the final message.
   */
  finalize?(
    ctx: MessageSendContext,
    state: LiveMessageState,
    final: LiveStreamFinal,
  ): Promise<MessageReceipt>;
  /**
   * Stops the live message without a final, leaving its text as it is: called when a session
   * ends without a final and its messages are kept (`previews.onCancel: "keep"`, also by crash
   * recovery with reason `aborted`); under `delete` core deletes the message with `send.delete`
   * instead. Must be idempotent. Absent: the message is left as it is.
   */
  cancel?(
    ctx: MessageSendContext,
    state: LiveMessageState,
    reason: LiveCancelReason,
  ): Promise<void>;
  /**
   * The platform's native streaming API, used by live mode `native`.
   * @deprecated Give `begin` / `update` / `finalize` / `cancel` (and `supports`) on the live
   *   adapter instead: `stream.begin` is `begin`, `stream.append` is `update` (its
   *   `deltaMarkdown`), `stream.finish(ctx, part, final)` is `finalize`, `stream.finish(ctx, part)`
   *   is `cancel`. Core reads an adapter that still has `stream` through that mapping
   *   (`liveLifecycleOf`); when both are given, the lifecycle methods win.
   */
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
