/**
 * What the delivery engine needs, resolved once by the runtime.
 *
 * @module
 */

import type { ChannelMessageAdapter } from "../adapter/types.ts";
import type { HeraldLogger } from "../logger.ts";
import type { BackoffOptions } from "../message/failure.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import type { CallSlots } from "./CallSlots.ts";
import type { DeliveryEvents } from "./events.ts";
import type { RateLimitScheduler } from "./RateLimitScheduler.ts";

/** Tunables of delivery. All durations in milliseconds. */
export type DeliveryOptions = {
  /**
   * Stable id of this worker process. Leases are owned by `${workerId}:${bootId}`; on start, a
   * worker recovers at once what a previous incarnation with the same `workerId` left leased
   * (otherwise it waits for the lease to expire). Give each process its own id.
   * @defaultValue a random id per process
   */
  workerId?: string;
  /** Lease length; renewed every third of it while a send is in flight. @defaultValue 30_000 */
  leaseMs?: number;
  /** Intents delivered at once by this worker. @defaultValue 16 */
  concurrency?: number;
  /** How often the worker looks for due intents when nothing woke it. @defaultValue 250 */
  pollIntervalMs?: number;
  /** Retry backoff and attempt caps. */
  backoff?: BackoffOptions;
  /**
   * Longest rate-limit wait spent in memory holding the lease; longer waits go back to the
   * durable queue via `nextAttemptAt`. An edit's follow-up calls wait at least
   * `FOLLOW_UP_WAIT_MS` (60 s; `delivery/units.ts`). @defaultValue 2_000
   */
  maxInMemoryWaitMs?: number;
  /** Unresolved reconciliation checks before `unknownSendPolicy` applies. @defaultValue 5 */
  maxReconcileChecks?: number;
  /**
   * A pending intent scheduled further ahead than this is treated as clock skew and made due.
   * @defaultValue 86_400_000 (24 h)
   */
  maxScheduleAheadMs?: number;
  /** Time budget of startup recovery; the rest continues in the background. @defaultValue 5_000 */
  recoveryBudgetMs?: number;
  /**
   * Rows one periodic recovery pass reads at most ([H25], C53); a pass cut off there is
   * continued by the next one (the loop leases between them), never started again.
   * @defaultValue 1_000
   */
  recoveryRowsPerPass?: number;
  /**
   * Default `maxAgeMs` of every send (ms from the intent's creation): an older intent is not
   * sent, it ends `expired` ([H25], C55; `docs/concepts/sending.md`). A send's own
   * `SendOptions.maxAgeMs` wins, then {@link DeliveryOptions.channelMaxAgeMs}.
   * @defaultValue none (no age limit)
   */
  maxAgeMs?: number;
  /** `maxAgeMs` per channel (`{ telegram: 60_000 }`), over {@link DeliveryOptions.maxAgeMs}. */
  channelMaxAgeMs?: Readonly<Record<string, number>>;
};

/** Resolved dependencies of the delivery engine. */
export type DeliveryDeps = {
  store: MessageStateStore;
  /** The adapter of (channel, accountId) — see `AdapterRegistry.find` for the lookup rule. */
  adapterFor(channel: string, accountId?: string): ChannelMessageAdapter | undefined;
  /**
   * Like `adapterFor`, but throws.
   * @throws UnknownChannelError · UnknownAccountError (from `src/adapter/registry.ts`)
   */
  requireAdapter(channel: string, accountId?: string): ChannelMessageAdapter;
  /**
   * Every registered adapter (the restart seed of the rate-limit buckets reads their declared
   * windows). @defaultValue none: no seed
   */
  adapters?: () => readonly ChannelMessageAdapter[];
  scheduler: RateLimitScheduler;
  /**
   * The runtime's delivery event listeners (`DeliveryWorker.on`), told by every path.
   * @defaultValue none: the worker keeps its own, and paths outside it emit nothing
   */
  events?: DeliveryEvents;
  /** Platform calls in flight, at most `options.concurrency`, on every path (`CallSlots`). */
  slots: CallSlots;
  clock: () => number;
  random: () => number;
  logger: HeraldLogger;
  /** Lease owner id of this process: `${workerId}:${bootId}`. */
  owner: string;
  workerId: string;
  options: Required<
    Omit<DeliveryOptions, "workerId" | "backoff" | "maxAgeMs" | "channelMaxAgeMs">
  > & {
    maxAgeMs?: number | undefined;
    channelMaxAgeMs?: Readonly<Record<string, number>> | undefined;
    backoff: BackoffOptions;
    /**
     * The runtime's `redact` option (`MessageRuntimeOptions.redact`): applied to every failure
     * reason delivery stores — the adapter's classified message, the error's own text when the
     * adapter gives none or its classifier throws, render and reconcile errors.
     */
    redact?: (text: string) => string;
  };
};

/** Defaults of {@link DeliveryOptions}. */
export const DELIVERY_DEFAULTS = {
  leaseMs: 30_000,
  concurrency: 16,
  pollIntervalMs: 250,
  maxInMemoryWaitMs: 2_000,
  maxReconcileChecks: 5,
  maxScheduleAheadMs: 86_400_000,
  recoveryBudgetMs: 5_000,
  recoveryRowsPerPass: 1_000,
} as const;
