/**
 * What a channel adapter can do (seed `message-lifecycle.md`, "Adapter surface" →
 * Capabilities). A role the platform lacks is absent, never `{}` pretending support.
 *
 * @module
 */

/**
 * A rate-limit scope the scheduler enforces with a token bucket per scope key.
 *
 * @example Telegram: `{ scope: "chat", limit: 1, intervalMs: 1_000 }` — one message per second per chat.
 */
export type RateLimitScope = {
  /**
   * What the bucket is keyed by: the whole bot/account, one chat (target id), one thread,
   * or an adapter-named route (the adapter maps a unit to its route key).
   */
  scope: "account" | "chat" | "thread" | "route";
  /** Requests allowed per interval. */
  limit: number;
  /** Interval length in milliseconds. */
  intervalMs: number;
  /** Restrict to these target kinds (e.g. Telegram's 20/min applies to groups only). */
  targetKinds?: Array<"direct" | "group" | "channel" | "thread">;
};

/** Declared abilities of a channel. */
export type MessageCapabilities = {
  text: {
    /** Longest text per platform message, in UTF-16 units. */
    maxLength?: number;
    /** The adapter splits long text into several units. */
    chunking?: boolean;
  };
  attachments?: { upload: boolean; remoteUrl: boolean; voice?: boolean; maxCaptionLength?: number };
  threads?: {
    reply: boolean;
    topic?: boolean;
    nativeThread?: boolean;
    /**
     * Threads exist in direct chats too (Slack, Matrix, Telegram private-chat topics). Without
     * it a DM gets no thread: the activity log drops its entries there (seed "DM behavior").
     * @defaultValue false
     */
    inDirect?: boolean;
  };
  live?: {
    edit: boolean;
    delete: boolean;
    nativeStream?: boolean;
    progress?: boolean;
    /** Edits allowed per chat, e.g. `{ limit: 1, intervalMs: 1000 }`. */
    editRate?: { limit: number; intervalMs: number };
  };
  delivery?: {
    /** The platform deduplicates retries by a key we send (Discord nonce, Matrix txnId). */
    idempotencyKey?: boolean;
    /** The platform reports retry-after on rate limits. */
    retryAfter?: boolean;
    receiptRequired?: boolean;
    /**
     * What happens to a `maybe_sent` attempt the adapter cannot reconcile: `hold` waits for an
     * operator, `at_least_once` replays with the same key (a duplicate may become visible).
     * @defaultValue "hold"
     */
    unknownSendPolicy?: "hold" | "at_least_once";
    /** An edit answered `not_found` may be replaced by a fresh send. */
    freshSendOnEditNotFound?: boolean;
  };
  /**
   * The adapter renders `ChannelMessage.card` natively (Slack blocks, Discord embeds, Google
   * Chat cardsV2). Without it the SDK hands render the card's fallback markdown appended to the
   * body, so a card is never dropped. @defaultValue false
   */
  cards?: boolean;
  /** Rate limits the scheduler enforces before calling the platform. */
  rateLimits?: RateLimitScope[];
};
