/**
 * Rate-limit declarations and feedback as plain data (DESIGN §4 "scheduler", §8 "Rate-limit
 * routes"): what an adapter declares in `capabilities.rateLimits`, which platform call a token
 * is taken for, and what the platform's response headers said. All durations in milliseconds.
 *
 * @module
 */
import type { MessageTarget } from "./message.ts";
import type { MessageReceiptPart } from "./receipt.ts";

/**
 * The kind of platform call a token is taken for. Live previews use the same operations as
 * durable sends (a preview is a `send`, a preview update an `edit`), so they share buckets.
 * - `send` / `edit` / `delete`: a message is created, replaced, deleted (or redacted);
 * - `stream_begin` / `stream_append` / `stream_finish`: native streams (Slack `chat.startStream`,
 *   `chat.appendStream` — Tier 4 —, `chat.stopStream` — Tier 2).
 */
export type RateLimitOperation =
  | "send"
  | "edit"
  | "delete"
  /** A reaction added or removed ([H23]). */
  | "react"
  | "stream_begin"
  | "stream_append"
  | "stream_finish";

/** Every {@link RateLimitOperation}. */
export const RATE_LIMIT_OPERATIONS: readonly RateLimitOperation[] = [
  "send",
  "edit",
  "delete",
  "react",
  "stream_begin",
  "stream_append",
  "stream_finish",
];

/**
 * A rate-limit scope the scheduler enforces with a sliding-window token bucket per scope key:
 * at most `limit` calls in any window of `intervalMs`.
 *
 * @example Telegram: one message per second per chat, sends and edits alike
 * ```ts
 * { scope: "chat", limit: 1, intervalMs: 1_000, operations: ["send", "edit"] }
 * ```
 * @example Slack: `chat.update` is Tier 3 (50/min per workspace), `chat.postMessage` ~1/s per channel
 * ```ts
 * [
 *   { scope: "chat", limit: 1, intervalMs: 1_000, operations: ["send"] },
 *   { scope: "account", limit: 50, intervalMs: 60_000, operations: ["edit"] },
 * ]
 * ```
 */
export type RateLimitScope = {
  /**
   * What the bucket is keyed by (always within one channel and account): the whole bot/account,
   * one chat (the platform's: `target.nativeChannelId`, else `target.id`), one thread, or one
   * route (the adapter's `rateLimitRoute` key, e.g. Discord `POST /channels/123/messages`; by
   * default operation, unit kind and chat).
   */
  scope: "account" | "chat" | "thread" | "route";
  /** Calls allowed per window. */
  limit: number;
  /** Window length in milliseconds. */
  intervalMs: number;
  /** Restrict to these target kinds (e.g. Telegram's 20/min applies to groups only). */
  targetKinds?: Array<"direct" | "group" | "channel" | "thread">;
  /**
   * Restrict to these operations (Slack method tiers: `chat.postMessage` vs `chat.update`).
   * @defaultValue every operation
   */
  operations?: RateLimitOperation[];
  /**
   * Names the bucket. Scopes are told apart by their fields; give two declarations with the
   * same fields distinct ids to keep their buckets apart, or one id to share a bucket.
   * @defaultValue derived from the other fields
   */
  id?: string;
};

/**
 * What an adapter's `rateLimitRoute` is asked about: one platform call before it is made.
 * The adapter answers the route key the platform buckets it by, major parameter included
 * (Discord `POST /channels/123/messages`, Slack `chat.update`).
 */
export type RateLimitRouteInput = {
  operation: RateLimitOperation;
  target: MessageTarget;
  /** Kind of the rendered unit (`text`, `media`, …) when known. */
  unitKind?: string | undefined;
  /** For `edit` / `delete` / `stream_*`: the platform message the call acts on. */
  part?: MessageReceiptPart | undefined;
};

/** One platform call as the scheduler sees it. */
export type RateLimitCall = {
  channel: string;
  accountId?: string | undefined;
  target: MessageTarget;
  operation: RateLimitOperation;
  /**
   * The route key: the adapter's `rateLimitRoute(...)`, else
   * `${operation}:${unitKind}:${target.id}` (see `defaultRateLimitRoute`).
   */
  route: string;
};

/**
 * What a platform's response said about the bucket of the call (Discord `X-RateLimit-*`,
 * Slack's and Matrix's headers where present). Adapters report it through
 * `MessageSendContext.reportRateLimit` after any response, success or error; the scheduler then
 * holds the route's calls once `remaining` is spent until the window resets.
 *
 * @example Discord
 * ```ts
 * ctx.reportRateLimit?.({
 *   remaining: Number(headers.get("x-ratelimit-remaining")),
 *   resetAfterMs: Number(headers.get("x-ratelimit-reset-after")) * 1_000, // header is seconds
 *   bucket: `${headers.get("x-ratelimit-bucket")}:${channelId}`,
 * });
 * ```
 */
export type RateLimitFeedback = {
  /** Calls left in the current window. */
  remaining?: number;
  /** Milliseconds until the window resets (convert from the platform's seconds). */
  resetAfterMs?: number;
  /**
   * The platform's bucket id. Routes reported with the same bucket share one budget (Discord
   * shares a bucket hash across routes; include the major parameter, e.g. `hash:channelId`).
   * @defaultValue the call's route key
   */
  bucket?: string;
  /** Calls allowed per window, when the platform says (informational). */
  limit?: number;
};
