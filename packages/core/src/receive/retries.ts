/**
 * Inbound that failed before its handler ran, retried by the running process ([H28] C50).
 *
 * A delivery can fail before anything durable exists — the store's disk is full, so the dedupe
 * lease or the inbox record cannot be written — or after the record but before the handler
 * (the lease is released). The platform was answered `retry`, but a socket source (Slack Socket
 * Mode, the Discord gateway) or a polling loop that moved on will not bring it again, and a
 * record-less failure leaves nothing for the recovery passes. So the runtime keeps the raw event
 * in memory and runs it through `receive` again with backoff (doubling from `baseMs` to `maxMs`)
 * until it is handled, found handled (dedupe: a platform redelivery won), or answered for good
 * (ignored, dropped, dead-lettered). Dedupe makes the handler run once whichever copy wins.
 *
 * Bounded: at most `maxPending` events wait (the oldest is given up, logged, when more fail); the
 * list is lost with the process (a restart re-polls from the persisted watermark; a webhook
 * platform redelivers on the `retry` it was answered).
 *
 * @module
 */

import { describeError } from "../context/errorInfo.ts";
import type { HeraldLogger } from "../logger.ts";
import { dedupeKeyString } from "./inflight.ts";
import type { ReceiveOutcome, ReceiveSource } from "./types.ts";

/** Settings of the inbound retries. Durations in milliseconds. */
export type InboundRetryOptions = {
  /** First retry delay. @defaultValue 1_000 */
  baseMs?: number;
  /** Longest delay between two retries. @defaultValue 60_000 */
  maxMs?: number;
  /** Most events waiting at once; beyond it the oldest is given up (logged). @defaultValue 1_000 */
  maxPending?: number;
};

/** One inbound event waiting for a retry (what the console and `/metrics` show). */
export type PendingInbound = {
  /** Channel and account of the delivery. */
  channel: string;
  accountId?: string;
  /** The dedupe key as a string, when intake got that far. */
  key?: string;
  /** Attempts that failed so far (the first delivery included). */
  attempts: number;
  /** Epoch ms of the first failure. */
  firstFailedAt: number;
  /** Epoch ms of the next attempt. */
  nextAttemptAt: number;
  /** The last error, one line (`CODE: message`). */
  lastError: string;
  /** Whether the message is recorded in the inbox (recovery would find it too). */
  recorded: boolean;
};

/** `CODE: message` of an error. */
function oneLine(error: unknown): string {
  const d = describeError(error);
  return `${d.code ?? d.name}: ${d.message}`;
}

type Entry = PendingInbound & { raw: unknown; source: ReceiveSource; timer?: NodeJS.Timeout };

/** What {@link InboundRetries} needs from the runtime. */
export type InboundRetryDeps = {
  /** Runs the event through the receive lifecycle again (a fresh ack, nobody waits on it). */
  run(raw: unknown, source: ReceiveSource): Promise<ReceiveOutcome>;
  /** Whether a failed outcome came before the handler ran (so a retry cannot run it twice). */
  beforeHandler(outcome: ReceiveOutcome): boolean;
  clock: () => number;
  log: HeraldLogger;
};

/** The events waiting for a retry in this process. */
export class InboundRetries {
  readonly #deps: InboundRetryDeps;
  readonly #baseMs: number;
  readonly #maxMs: number;
  readonly #maxPending: number;
  readonly #pending = new Set<Entry>();
  #stopped = false;

  constructor(deps: InboundRetryDeps, options: InboundRetryOptions = {}) {
    this.#deps = deps;
    this.#baseMs = options.baseMs ?? 1_000;
    this.#maxMs = options.maxMs ?? 60_000;
    this.#maxPending = options.maxPending ?? 1_000;
  }

  /** Looks at a delivery's outcome: a failure before the handler is kept for a retry. */
  consider(raw: unknown, source: ReceiveSource, outcome: ReceiveOutcome): void {
    if (this.#stopped || outcome.status !== "failed" || !this.#deps.beforeHandler(outcome)) return;
    const key = outcome.key ? dedupeKeyString(outcome.key) : undefined;
    // A redelivery of a message already waiting: the waiting one stands for both.
    if (key !== undefined && [...this.#pending].some((e) => e.key === key)) return;
    const now = this.#deps.clock();
    const { ackDeadlineMs: _deadline, ...kept } = source;
    const entry: Entry = {
      channel: source.channel,
      ...(source.accountId === undefined ? {} : { accountId: source.accountId }),
      ...(key === undefined ? {} : { key }),
      attempts: 1,
      firstFailedAt: now,
      nextAttemptAt: now,
      lastError: oneLine(outcome.error),
      recorded: outcome.recorded,
      raw,
      source: { ...kept, receivedAt: source.receivedAt ?? now },
    };
    this.#pending.add(entry);
    if (this.#pending.size > this.#maxPending) {
      const oldest = this.#pending.values().next().value as Entry;
      this.#drop(oldest, "too many inbound events wait for a retry (maxPending)");
    }
    this.#schedule(entry);
  }

  /** The events waiting, oldest first. */
  list(): PendingInbound[] {
    return [...this.#pending].map(
      ({ raw: _raw, source: _source, timer: _timer, ...shown }) => shown,
    );
  }

  /** Stops retrying (the runtime stops); the events still waiting are logged and forgotten. */
  stop(): void {
    this.#stopped = true;
    for (const entry of this.#pending) clearTimeout(entry.timer);
    if (this.#pending.size > 0)
      this.#deps.log.warn(
        { pending: this.list() },
        "inbound events still waiting for a retry when the runtime stopped",
      );
    this.#pending.clear();
  }

  #schedule(entry: Entry): void {
    const delayMs = Math.min(this.#maxMs, this.#baseMs * 2 ** Math.min(entry.attempts - 1, 30));
    entry.nextAttemptAt = this.#deps.clock() + delayMs;
    this.#deps.log.warn(
      {
        channel: entry.channel,
        accountId: entry.accountId,
        key: entry.key,
        attempts: entry.attempts,
        retryInMs: delayMs,
        error: entry.lastError,
      },
      "inbound failed before its handler ran: retrying",
    );
    entry.timer = setTimeout(() => void this.#retry(entry), delayMs);
    entry.timer.unref?.();
  }

  async #retry(entry: Entry): Promise<void> {
    if (this.#stopped || !this.#pending.has(entry)) return;
    let outcome: ReceiveOutcome;
    try {
      outcome = await this.#deps.run(entry.raw, entry.source);
    } catch (error) {
      outcome = { status: "failed", error: error as Error, acked: true, recorded: false };
    }
    if (this.#stopped || !this.#pending.has(entry)) return;
    if (outcome.status === "failed" && this.#deps.beforeHandler(outcome)) {
      entry.attempts += 1;
      entry.lastError = oneLine(outcome.error);
      entry.recorded ||= outcome.recorded;
      this.#schedule(entry);
      return;
    }
    this.#pending.delete(entry);
    this.#deps.log.info(
      {
        channel: entry.channel,
        accountId: entry.accountId,
        key: entry.key,
        attempts: entry.attempts + 1,
        outcome: outcome.status,
      },
      "inbound retried after failing before its handler",
    );
  }

  #drop(entry: Entry, why: string): void {
    clearTimeout(entry.timer);
    this.#pending.delete(entry);
    this.#deps.log.error(
      { channel: entry.channel, accountId: entry.accountId, key: entry.key, why },
      "inbound event given up without a retry",
    );
  }
}
