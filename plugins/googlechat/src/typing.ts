/**
 * Typing on Google Chat (CASES C36). Chat has no typing indicator for apps; the usual stand-in
 * is a **placeholder message** ("…") posted where the answer will appear and replaced by it.
 * herald builds it on core's live lifecycle instead of a second mechanism: the placeholder is
 * the preview of a live session in `progress` mode, so
 *
 * - the final edits the placeholder into its first chunk (or, when the placeholder is stale,
 *   is sent fresh and the placeholder deleted only after the final was accepted): exactly one
 *   visible final, never the placeholder next to it;
 * - a turn that ends without a final (silently or by throwing) cancels the session: the
 *   placeholder is deleted, never left behind;
 * - a placeholder deleted meanwhile (the final's edit answers 404) is replaced by a fresh first
 *   chunk in the same thread (`freshSendOnEditNotFound`): nothing lost;
 * - a final of several chunks: chunk 1 in the placeholder, chunks 2… after it, in its thread.
 *
 * @module
 */
import {
  type ChannelMessage,
  type MessageReceipt,
  type MessageRelation,
  type MessageTarget,
  placeReply,
  type ReplyPlacement,
} from "@herald/plugin-sdk/channel-message";

/** What is shown while the bot works. */
export const DEFAULT_PLACEHOLDER_TEXT = "…";

/** The live session a placeholder is (core's `LiveSession`, structurally). */
export type TypingPlaceholder = {
  /** Shows `text` instead of the placeholder (a status line: "Searching…"). */
  update(update: string | { progress: string }): void;
  /** Replaces the placeholder with the final (markdown), chunked as any message. */
  finalize(final?: string): Promise<MessageReceipt>;
  /** Deletes the placeholder. */
  cancel(reason?: "silent" | "aborted" | "error"): Promise<void>;
  /** Resolves once the placeholder (and every update) was posted and recorded. */
  idle(): Promise<void>;
};

/** What {@link startTypingPlaceholder} needs of the runtime (`runtime.live`). */
export type PlaceholderRuntime = {
  live(
    target: {
      channel: string;
      target: MessageTarget;
      accountId?: string;
      relation?: MessageRelation;
    },
    options?: { mode?: "progress"; idempotencyKey?: string; turnId?: string },
  ): Promise<{
    update(update: { progress: string }): void;
    finalize(final?: string): Promise<MessageReceipt>;
    cancel(reason?: "silent" | "aborted" | "error"): Promise<void>;
    idle(): Promise<void>;
  }>;
};

/** Options of {@link startTypingPlaceholder}. */
export type TypingPlaceholderOptions = {
  /** @defaultValue {@link DEFAULT_PLACEHOLDER_TEXT} */
  text?: string;
  /**
   * Where the answer goes, as `turn.reply` places it. @defaultValue the inbound's own place
   * (top level, or the user's thread)
   */
  placement?: ReplyPlacement;
  /**
   * The final's idempotency key.
   * @defaultValue `typing:<channel>:<account>:<inbound id>` — one per account, so two apps
   * answering the same message never share a key (nor a requestId / messageId)
   */
  idempotencyKey?: string;
  turnId?: string;
};

/** The default key of a placeholder's session: namespaced by channel and account like core's keys. */
export const typingKey = (inbound: Pick<ChannelMessage, "channel" | "accountId" | "id">): string =>
  `typing:${inbound.channel}:${inbound.accountId ?? ""}:${inbound.id}`;

/**
 * Posts a placeholder where the reply to `inbound` will go and returns the live session that
 * replaces it (C36). Inside a turn, an unfinished session is cancelled when the turn ends.
 *
 * @example
 * const typing = await startTypingPlaceholder(runtime, ctx.input);
 * const answer = await think();
 * await typing.finalize(answer); // the placeholder becomes the answer
 */
export async function startTypingPlaceholder(
  runtime: PlaceholderRuntime,
  inbound: ChannelMessage,
  options: TypingPlaceholderOptions = {},
): Promise<TypingPlaceholder> {
  const address = placeReply(inbound, options.placement);
  const session = await runtime.live(
    {
      channel: inbound.channel,
      target: address.target,
      relation: address.relation,
      ...(inbound.accountId !== undefined ? { accountId: inbound.accountId } : {}),
    },
    {
      mode: "progress",
      idempotencyKey: options.idempotencyKey ?? typingKey(inbound),
      ...(options.turnId !== undefined ? { turnId: options.turnId } : {}),
    },
  );
  session.update({ progress: options.text ?? DEFAULT_PLACEHOLDER_TEXT });
  return {
    update: (u) => session.update(typeof u === "string" ? { progress: u } : u),
    finalize: (final) => session.finalize(final),
    cancel: (reason) => session.cancel(reason),
    idle: () => session.idle(),
  };
}
