/**
 * What a channel adapter can do (seed `message-lifecycle.md`, "Adapter surface" →
 * Capabilities). A role the platform lacks is absent, never `{}` pretending support.
 *
 * @module
 */

import type { RateLimitScope } from "./rateLimit.ts";

/**
 * What a reconciler's answers are worth (declared in `capabilities.delivery.reconcile`).
 *
 * @example Slack, looking the message up by metadata in `conversations.history`:
 * `{ notSent: "best_effort", visibilityLagMs: 2_000 }` (history may lag, and is read in a narrow window).
 */
export type ReconcileDeclaration = {
  /**
   * `complete`: a `not_sent` answer proves the platform does not have the unit (say a direct
   * lookup by client key, after the settle delay), so herald replays it through the replay
   * gate. `best_effort`: `not_sent` may miss a message that exists (paged or lagging history);
   * herald then applies `unknownSendPolicy` (`hold` waits for an operator, `at_least_once`
   * replays) — never a blind replay.
   */
  notSent: "complete" | "best_effort";
  /**
   * Time after the platform accepted a message before a lookup can see it, in ms (search
   * indexes, history replicas). Added to `requestTimeoutMs` for the settle delay.
   * @defaultValue 0
   */
  visibilityLagMs?: number;
};

/** Declared abilities of a channel. */
export type MessageCapabilities = {
  text: {
    /** Longest text per platform message, in UTF-16 units. */
    maxLength?: number;
    /** The adapter splits long text into several units. */
    chunking?: boolean;
  };
  /**
   * Files both ways ([H23]; PLATFORMS.md §10): `upload` sends local files (`attachment.path`),
   * `remoteUrl` sends by URL. Each outbound attachment is its own unit with its own key and
   * receipt part; one over `maxUploadBytes` throws `AttachmentTooLargeError` before any upload.
   */
  attachments?: {
    upload: boolean;
    remoteUrl: boolean;
    voice?: boolean;
    maxCaptionLength?: number;
    /** Largest file the platform accepts, in bytes. */
    maxUploadBytes?: number;
    /** Inbound attachments carry a ref `receive.fetchAttachment` can stream. */
    receive?: boolean;
  };
  /**
   * Reactions ([H23]): add / remove an emoji on a message (durable `reaction` intents), and
   * inbound `InboundReaction` events. `repeat` says how the platform answers a repeated add
   * (docs and tests): `idempotent` (Discord PUT, Matrix txnId), `error_means_done` (Slack
   * `already_reacted` / `no_reaction`, mapped to success), `replaces_set` (Telegram
   * `setMessageReaction` sets the whole list). A replay never toggles a reaction off.
   */
  reactions?: {
    add: boolean;
    remove: boolean;
    receive: boolean;
    repeat: "idempotent" | "error_means_done" | "replaces_set";
  };
  /** Opening (or finding) the 1:1 chat with a user: `directMessages.open`, idempotent. */
  directMessages?: {
    open: boolean;
    /** The user must have written to the bot first (Telegram). */
    requiresUserFirst?: boolean;
  };
  /**
   * Buttons on a message (`ChannelMessage.actions`) drawn natively, and clicks arriving as
   * `InboundAction` events. Without `buttons` the SDK renders a text fallback of the labels.
   */
  actions?: {
    buttons: boolean;
    receive: boolean;
    /** Most buttons per message. */
    maxButtons?: number;
    /** Longest button id, in UTF-8 bytes (Telegram `callback_data`: 64). */
    maxIdBytes?: number;
  };
  /** Replies only one user sees (`send.sendEphemeral`: Slack, Google Chat). @defaultValue false */
  ephemeral?: boolean;
  /** Reading recent messages (`history.list`). `maxLimit` caps one call's `limit`. */
  history?: { conversation: boolean; thread: boolean; maxLimit: number };
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
    /**
     * The platform deduplicates retries by a key we send (Discord nonce, Matrix txnId): a
     * `maybe_sent` unit is replayed with the same `unitIdempotencyKey`, through the replay gate
     * (backoff, retry-after, `maxAttempts`), while the key is inside `idempotencyWindowMs`.
     */
    idempotencyKey?: boolean;
    /**
     * How long the platform remembers a key, in ms, counted from the unit's first dispatch
     * (`DurableSendIntent.firstDispatchAt`). A replay later than this is not treated as safe:
     * herald reconciles when the adapter can, else applies `unknownSendPolicy`. Declare it
     * conservatively (a little under the platform's documented window). Absent: the platform
     * documents no expiry (Google Chat `requestId`) and the key is trusted forever.
     * Examples (PLATFORMS.md §2, §8): Discord `enforce_nonce` "a few minutes" → `120_000`;
     * Synapse txnIds 24 h → `82_800_000`.
     */
    idempotencyWindowMs?: number;
    /**
     * The longest a platform call may take before the client gives up, in ms (the SDK's request
     * timeout). A timed-out request may still be stored by the platform until about then, so
     * reconciliation never looks before it has passed (the settle delay).
     * @defaultValue 30_000
     */
    requestTimeoutMs?: number;
    /**
     * What `send.reconcileUnknownSend` can prove (DESIGN §3 "Replay gate"). Its first lookup
     * waits a settle delay of `requestTimeoutMs + visibilityLagMs` after the failed attempt.
     * Absent while the adapter has a reconciler: `{ notSent: "best_effort" }`.
     */
    reconcile?: ReconcileDeclaration;
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
  /**
   * Rate limits the scheduler enforces before every platform call, durable sends and live
   * previews alike (one bucket set per channel and account). Durations in ms.
   */
  rateLimits?: RateLimitScope[];
};
