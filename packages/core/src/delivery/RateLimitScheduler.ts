/**
 * The rate-limit scheduler (DESIGN §4): enforces each adapter's declared rate-limit scopes
 * (per bot, per chat, per thread, per route) before a platform call, so a well-behaved gateway
 * never sees a 429; and pauses one scope key when the platform answers `rate_limit` anyway.
 *
 * Each bucket is a token bucket whose tokens come back one by one, `intervalMs` after each was
 * spent (a sliding-window log): at most `limit` calls in *any* window of `intervalMs`. That is
 * stricter than a refill-rate bucket, which can burst past a platform's sliding window. A token
 * comes back `marginMs` late (default 1 % of the interval + 1 ms) because the platform counts
 * when the request arrives, which is a little after the scheduler let it go.
 *
 * State is per process. Several gateway processes sharing one bot account each enforce the
 * full limit: configure `limit / processes` in that case.
 *
 * @module
 */
import type { RenderedMessageUnit } from "../message/batch.ts";
import type { RateLimitScope } from "../message/capabilities.ts";
import type { DurableSendIntent } from "../message/intent.ts";
import type { MessageTarget } from "../message/message.ts";

/** The facts a scope key is computed from. */
export type RateLimitSubject = {
  channel: string;
  accountId?: string | undefined;
  target: MessageTarget;
  /** Adapter-named route (e.g. `POST /channels/{id}/messages`) for `route` scopes. */
  route?: string | undefined;
};

type ScopeKind = RateLimitScope["scope"];
type Bucket = { limit: number; intervalMs: number; spentAt: number[] };

/** The key of one scope kind for a subject: `chat` → channel + account + chat id, etc. */
export function scopeKey(kind: ScopeKind, subject: RateLimitSubject): string {
  const parts = [kind, subject.channel, subject.accountId ?? ""];
  if (kind !== "account") parts.push(subject.target.id);
  if (kind === "thread") parts.push(subject.target.threadId ?? "");
  if (kind === "route") parts.push(subject.route ?? "");
  return parts.join("\u0000");
}

/**
 * Token buckets per scope key, plus pauses set by the platform's retry-after.
 *
 * @example
 * const wait = scheduler.reserve(capabilities.rateLimits ?? [], subject, Date.now());
 * if (wait > 0) await sleep(wait); // nothing was taken; reserve again after waiting
 */
export class RateLimitScheduler {
  readonly #buckets = new Map<string, Bucket>();
  readonly #pausedUntil = new Map<string, number>();
  readonly #margin: (intervalMs: number) => number;

  /** @param options.marginMs - extra ms before a spent token returns. @defaultValue 1 % of the interval + 1 ms */
  constructor(options: { marginMs?: (intervalMs: number) => number } = {}) {
    this.#margin = options.marginMs ?? ((intervalMs) => Math.ceil(intervalMs * 0.01) + 1);
  }

  /** Like {@link reserve} but takes nothing: how many ms until a call could go (0 = now). */
  peek(scopes: readonly RateLimitScope[], subject: RateLimitSubject, now: number): number {
    return this.#wait(scopes, subject, now).wait;
  }

  /**
   * Takes one token from every applicable bucket, or none.
   *
   * @param scopes - the adapter's declared limits (`capabilities.rateLimits`).
   * @param now - epoch ms.
   * @returns 0 when the tokens were taken (call the platform now); otherwise how many ms to
   * wait before asking again (nothing was taken).
   */
  reserve(scopes: readonly RateLimitScope[], subject: RateLimitSubject, now: number): number {
    const { wait, buckets } = this.#wait(scopes, subject, now);
    if (wait > 0) return wait;
    for (const b of buckets) b.spentAt.push(now);
    return 0;
  }

  /**
   * Moves tokens taken by {@link reserve} at `takenAt` to `now`, when the platform call starts a
   * little later (after the `sending` write): the platform counts the call when it arrives, so
   * the token returns an interval after that, not after the reservation.
   *
   * @param takenAt - the `now` the tokens were reserved with (epoch ms).
   * @param now - epoch ms, at least `takenAt`.
   */
  restamp(
    scopes: readonly RateLimitScope[],
    subject: RateLimitSubject,
    takenAt: number,
    now: number,
  ): void {
    if (now <= takenAt) return;
    const { buckets } = this.#wait(scopes, subject, takenAt);
    for (const b of buckets) {
      const at = b.spentAt.lastIndexOf(takenAt);
      if (at < 0) continue;
      b.spentAt.splice(at, 1);
      let i = b.spentAt.length;
      while (i > 0 && (b.spentAt[i - 1] ?? 0) > now) i--;
      b.spentAt.splice(i, 0, now);
    }
  }

  #wait(
    scopes: readonly RateLimitScope[],
    subject: RateLimitSubject,
    now: number,
  ): { wait: number; buckets: Bucket[] } {
    let wait = this.pausedMs(subject, now);
    const buckets: Bucket[] = [];
    for (const [i, scope] of scopes.entries()) {
      if (scope.targetKinds && !scope.targetKinds.includes(subject.target.kind)) continue;
      const key = `${i}\u0000${scopeKey(scope.scope, subject)}`;
      let b = this.#buckets.get(key);
      if (!b) {
        const intervalMs = scope.intervalMs + this.#margin(scope.intervalMs);
        b = { limit: scope.limit, intervalMs, spentAt: [] };
        this.#buckets.set(key, b);
      }
      while (b.spentAt.length > 0 && (b.spentAt[0] ?? 0) + b.intervalMs <= now) b.spentAt.shift();
      if (b.spentAt.length >= b.limit) {
        wait = Math.max(wait, (b.spentAt[0] ?? now) + b.intervalMs - now);
      }
      buckets.push(b);
    }
    return { wait, buckets };
  }

  /** How long (ms) the subject is paused by a platform retry-after, 0 when not paused. */
  pausedMs(subject: RateLimitSubject, now: number): number {
    let wait = 0;
    for (const kind of ["account", "chat", "thread", "route"] as const) {
      const until = this.#pausedUntil.get(scopeKey(kind, subject));
      if (until !== undefined) wait = Math.max(wait, until - now);
    }
    return wait;
  }

  /**
   * Pauses one scope key after the platform answered `rate_limit`: with `chat`, only that chat
   * waits; with `account`, every chat of the bot does.
   *
   * @param untilMs - epoch ms when calls may resume.
   */
  pause(kind: ScopeKind, subject: RateLimitSubject, untilMs: number): void {
    const key = scopeKey(kind, subject);
    this.#pausedUntil.set(key, Math.max(this.#pausedUntil.get(key) ?? 0, untilMs));
  }
}

/** The rate-limit subject of an intent's platform call. */
export function subjectOf(intent: DurableSendIntent, unit?: RenderedMessageUnit): RateLimitSubject {
  return {
    channel: intent.channel,
    accountId: intent.accountId,
    target: intent.message.target,
    route: `${intent.operation.kind}:${unit?.kind ?? "text"}`,
  };
}
