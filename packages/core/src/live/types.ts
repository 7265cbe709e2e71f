/**
 * Public types of live messages (seed `message-lifecycle.md`, "Live context"; DESIGN §6).
 *
 * @module
 */
import type { LivePreviewPolicy } from "../adapter/live.ts";
import type {
  MessageAttachment,
  MessageRecipient,
  MessageRelation,
  MessageTarget,
} from "../message/message.ts";
import type { MessageOrigin } from "../message/origin.ts";

/**
 * How a live session shows work in progress:
 * - `partial`: send a preview, then edit it as text arrives (a long text continues in further
 *   previews, one per platform message);
 * - `block`: send each completed block (paragraph or fenced code block) as its own message,
 *   never an unfinished one;
 * - `progress`: one status line (`update({ progress })`), edited in place;
 * - `native`: the platform's own streaming API (`live.stream` of the adapter); falls back to
 *   `partial` when the adapter has none or does not support the target.
 */
export type LiveMode = "partial" | "block" | "progress" | "native";

/**
 * The mode asked of `runtime.live`: a {@link LiveMode}, or `auto` — `native` where the channel
 * streams natively for this target (`live.stream`, and its `supports(message)`), else `partial`
 * previews where it can edit, else `block`. The session's `mode` is the one chosen.
 */
export type LiveModeOption = LiveMode | "auto";

/** Where a live message goes. */
export type LiveTarget = {
  /** Channel plugin id, e.g. `"telegram"`. */
  channel: string;
  target: MessageTarget;
  /** Account (bot) id inside the channel. */
  accountId?: string;
  /** herald's id of the outbound message. @defaultValue a random UUID */
  id?: string;
  relation?: MessageRelation;
  origin?: MessageOrigin;
  /**
   * Whom the message is for, where the channel's native stream needs it (Slack: the user and
   * team of the message being answered). Carried on the outbound message (`recipient`).
   */
  recipient?: MessageRecipient;
};

/**
 * One update of a live session. A string is `{ text }`. `text` is the **whole** text so far
 * (markdown), not a delta: the newest update wins and intermediate ones may never be shown.
 * `progress` is a status line ("Searching the web…"): the whole preview in `progress` mode; in
 * `partial` mode it is shown until the first text arrives.
 */
export type LiveUpdate = string | { text?: string; progress?: string };

/** The final message. A string is `{ text }`. @defaultValue the last `text` update */
export type LiveFinal = string | { text?: string; attachments?: MessageAttachment[] };

export type { LiveCancelReason } from "../adapter/live.ts";

/** Options of `runtime.live(target, options)`. */
export type LiveOptions = {
  /** @defaultValue "partial" */
  mode?: LiveModeOption;
  /**
   * The idempotency key of the final message. Opening a session again with a key whose final
   * was delivered gives a finished session: updates are ignored and `finalize` returns the
   * first receipt without sending. Derive it from what caused the message (`reply:<inbound id>`).
   * A key names a slot: reusing it for another channel, account, conversation or relation
   * throws `IdempotencyConflictError` (the text of a replayed final is not compared).
   * @defaultValue `live:<channel>:<account>:<id>` (`defaultLiveKey`)
   */
  idempotencyKey?: string;
  /** Overrides the adapter's `live.previews.onCancel`. */
  onCancel?: LivePreviewPolicy;
  /** Overrides the adapter's `live.previews.onRecover`. */
  onRecover?: LivePreviewPolicy;
  /**
   * Overrides the adapter's `live.previews.staleAfterMs`: age of the first preview in ms after
   * which the final is sent fresh instead of edited in place. `0` always sends a fresh final.
   */
  staleAfterMs?: number;
  /**
   * Show the adapter's typing indicator while the session runs. `ttlMs` is a hard limit counted
   * from the start (failing indicator calls never extend it).
   * @defaultValue true with `ttlMs: 60_000` when the adapter has `live.typing`
   */
  typing?: boolean | { ttlMs?: number };
  /**
   * How long `finalize` waits for the final's receipt before throwing `DeliveryPendingError`
   * (the final stays queued; recovery cleans the previews up once it lands), in ms.
   * @defaultValue 30_000
   */
  waitMs?: number;
  /** Root turn id stamped on the final intent. */
  turnId?: string;
};

/** Options of `runtime.typing(target, options)`. */
export type TypingOptions = {
  /** Hard limit in ms, counted from the start. @defaultValue 60_000 */
  ttlMs?: number;
};

/** A running typing indicator. */
export type TypingHandle = {
  /** False once stopped (by `stop()` or the TTL). */
  readonly active: boolean;
  /**
   * Hides the indicator: stops refreshing, aborts a call in flight (`ctx.signal`) and, once it
   * settled, hides it where the platform can. Resolves when the platform answered; nothing is
   * sent for this indicator afterwards. Idempotent; never throws.
   */
  stop(): Promise<void>;
};

/**
 * Timers of the live lifecycle (throttling, retries, typing refresh, lease renewal). Inject a
 * manual implementation in tests, together with the runtime's `clock`, so nothing sleeps.
 */
export type LiveTimers = {
  /** Calls `fn` after `ms` milliseconds. @returns a handle for `clearTimeout`. */
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
};

/** Runtime-wide live settings (`createMessageRuntime({ live })`). */
export type LiveRuntimeOptions = {
  /** @defaultValue Node's timers */
  timers?: LiveTimers;
  /**
   * How often live recovery looks for sessions whose process died, in ms; `0` runs it only at
   * `start()` and through `runtime.recoverLive()`.
   * @defaultValue min(leaseMs / 2, 5_000)
   */
  recoveryIntervalMs?: number;
  /**
   * Consecutive failed preview calls (rate limits not counted) after which a session stops
   * updating previews; the final is still delivered. @defaultValue 5
   */
  maxPreviewFailures?: number;
  /**
   * Called for every failed `reconcileUnknownSend` of an in-doubt preview (live cleanup and
   * live recovery), after it was logged; the gateway counts these in `/metrics`
   * (`herald_reconcile_errors_total`). The preview is looked at again on the next pass.
   */
  onReconcileError?: (event: LiveReconcileError) => void;
};

/** One failed reconciliation of an in-doubt live preview. */
export type LiveReconcileError = {
  channel: string;
  accountId?: string;
  /** The live intent. */
  intentId: string;
  /** What the adapter threw (or why reconciling was impossible). */
  error: unknown;
};

/** What one live recovery pass did. */
export type LiveRecoveryReport = {
  /** Sessions whose final had landed: leftover previews deleted. */
  finalized: number;
  /** Sessions without a final whose previews were deleted (`onRecover: "delete"`). */
  deleted: number;
  /** Sessions without a final whose previews were kept as the message (`onRecover: "keep"`). */
  kept: number;
  /** Sessions whose final is still queued; looked at again on the next pass. */
  waiting: number;
  /** False when the time budget ran out; the next pass continues. */
  complete: boolean;
};
