/**
 * The long-polling receiver every polling platform needs, with the offset under herald's
 * control (DESIGN §5; the recipe of `docs/plugin-authoring.md` "Polling").
 *
 * - **Confirm only what is durable.** A platform whose fetch offset confirms earlier updates
 *   (Telegram `getUpdates(offset)`) must only ever be asked from the persisted watermark + 1:
 *   the lowest update neither recorded nor done stays on the platform until it is, so a crash
 *   loses nothing. `poll` gets that as `after`.
 * - **In-flight safe.** While an update is unfinished the platform hands it over again on every
 *   fetch. The helper never hands an update to the sink twice in one process (the old recipe —
 *   `resumeAfter() + 1` in a plain loop — redelivered an update on every poll while its handler
 *   ran: 48 duplicates in 2.5 s). While something is unfinished it asks without holding the long
 *   poll (`longPoll: false`) every `pinnedPollIntervalMs`, or as soon as an update finishes.
 * - **Paced.** A poll answered empty is followed by the next no sooner than `emptyPollGapMs`
 *   after it started (a server that answers `[]` at once is not asked in a hot loop).
 * - **Backoff.** A failed poll waits `retryDelayMs`, doubled per failure in a row up to
 *   `maxRetryDelayMs`, or the error's `retryAfterMs` (a 429) when longer. A
 *   `ChannelAccountError` (credentials rejected) stops the loop: health `down` with its fix.
 *
 * @module
 */
import { sleep, type WatermarkId, type WatermarkTracker } from "@herald/core";
import {
  type ChannelReceiver,
  isChannelAccountError,
  type ReceiverHealth,
  receiverHealth,
} from "../account.ts";
import type { ChannelReceiverSink } from "../plugin.ts";

/** What {@link PollingReceiverOptions.poll} is asked. */
export type PollRequest = {
  /**
   * Fetch updates with ids above this one (`offset = after + 1` on Telegram); `undefined`: from
   * the platform's oldest. Never past an update whose work is not durable.
   */
  after: bigint | undefined;
  /** `false` while an update is unfinished: answer at once instead of holding the long poll. */
  longPoll: boolean;
  /** Aborted by `stop()`. */
  signal: AbortSignal;
};

/** Options of {@link pollingReceiver}. */
export type PollingReceiverOptions<TUpdate> = {
  sink: ChannelReceiverSink;
  /** Fetches the next batch (in id order). Throw the plugin's API / network errors. */
  poll(request: PollRequest): Promise<readonly TUpdate[]>;
  /** The update's integer id (`update_id`); `undefined` → handed over untracked and logged. */
  idOf(update: TUpdate): WatermarkId | undefined;
  /** The watermark's source name (several cursors of one account). @defaultValue "updates" */
  source?: string;
  /** Least time from the start of an empty poll to the next poll, in ms. @defaultValue 1_000 */
  emptyPollGapMs?: number;
  /** How often to ask while an update is unfinished, in ms. @defaultValue 500 */
  pinnedPollIntervalMs?: number;
  /** First wait after a failed poll, in ms (doubled per failure in a row). @defaultValue 1_000 */
  retryDelayMs?: number;
  /** Longest wait after failures, in ms. @defaultValue 30_000 */
  maxRetryDelayMs?: number;
  /** Called once an update's ack is `accept` (answer a button press, …). */
  onAccept?(update: TUpdate): void;
  /** Epoch-ms clock of the pacing and the health timestamps. @defaultValue Date.now */
  clock?: () => number;
  /** Waits `ms` or until `signal` aborts (tests pass one driven by a fake clock). @defaultValue the SDK's `sleep` */
  sleep?: (ms: number, signal: AbortSignal) => Promise<unknown>;
};

/**
 * Creates a long-polling receiver: `start()` loads the watermark and resolves; polling runs in
 * the background until `stop()` (which confirms nothing). `health()` is `up` after a poll
 * succeeded, `connecting` while polls fail, `down` when stopped or the credentials were rejected.
 *
 * @example
 * receiver: pollingReceiver({
 *   sink: deps.sink,
 *   poll: ({ after, longPoll, signal }) =>
 *     call<{ updates: Update[] }>("GET /v1/updates", {
 *       query: { after: after?.toString(), wait_s: longPoll ? 25 : 0 },
 *       timeoutMs: 35_000,
 *       signal,
 *     }).then((r) => r.updates),
 *   idOf: (u) => u.id,
 * }),
 */
export function pollingReceiver<TUpdate>(
  options: PollingReceiverOptions<TUpdate>,
): ChannelReceiver {
  const { sink } = options;
  const clock = options.clock ?? Date.now;
  const wait = options.sleep ?? sleep;
  const emptyGapMs = options.emptyPollGapMs ?? 1_000;
  const pinnedMs = options.pinnedPollIntervalMs ?? 500;
  const firstRetryMs = options.retryDelayMs ?? 1_000;
  const maxRetryMs = options.maxRetryDelayMs ?? 30_000;
  const health = receiverHealth(clock);
  let controller: AbortController | undefined;
  let loop: Promise<void> | undefined;

  async function run(tracker: WatermarkTracker, signal: AbortSignal): Promise<void> {
    /** Ids handed to the sink in this process and not yet at or below the watermark. */
    const handed = new Set<bigint>();
    let wake: (() => void) | undefined;
    const pause = async (ms: number) => {
      const woken = new AbortController();
      wake = () => woken.abort();
      await wait(ms, AbortSignal.any([signal, woken.signal]));
      wake = undefined;
    };
    let retryMs = firstRetryMs;
    let emptyPollAt: number | undefined;
    while (!signal.aborted) {
      const after = tracker.resumeAfter();
      for (const id of handed) if (after !== undefined && id <= after) handed.delete(id);
      if (emptyPollAt !== undefined) {
        const gapMs = emptyPollAt + emptyGapMs - clock();
        if (gapMs > 0) await wait(gapMs, signal);
        if (signal.aborted) break;
      }
      const polledAt = clock();
      let updates: readonly TUpdate[];
      try {
        updates = await options.poll({ after, longPoll: tracker.pending().length === 0, signal });
      } catch (error) {
        if (signal.aborted) break;
        if (isChannelAccountError(error)) {
          health.set("down", (error as Error).message);
          sink.logger.error({ err: error }, "polling stopped: the account cannot run");
          return;
        }
        health.set("connecting", `poll failing: ${(error as Error).message}`);
        sink.logger.warn({ err: error }, "poll failed; retrying");
        const askedMs = (error as { retryAfterMs?: unknown }).retryAfterMs;
        emptyPollAt = undefined;
        await pause(Math.max(retryMs, typeof askedMs === "number" ? askedMs : 0));
        retryMs = Math.min(retryMs * 2, maxRetryMs);
        continue;
      }
      retryMs = firstRetryMs;
      emptyPollAt = updates.length === 0 ? polledAt : undefined;
      health.set("up");
      const idOf = (u: TUpdate) => {
        const id = options.idOf(u);
        return id === undefined ? undefined : BigInt(id);
      };
      // An id at or below `after` means the platform's id sequence restarted (the watermark
      // follows it down): ids of the old sequence no longer say "already handed over".
      const restarted = updates.some((u) => {
        const id = idOf(u);
        return id !== undefined && after !== undefined && id <= after;
      });
      if (restarted) handed.clear();
      const fresh = updates.filter((u) => {
        const id = idOf(u);
        return id === undefined || !handed.has(id);
      });
      // Every update of the batch is begun before any completes: none can be passed over.
      for (const u of fresh) {
        const id = idOf(u);
        if (id !== undefined) tracker.begin(id);
      }
      for (const u of fresh) {
        const id = idOf(u);
        const ticket = sink.receive(u);
        if (id === undefined) {
          sink.logger.warn({}, "polled update without an integer id: not tracked");
          continue;
        }
        handed.add(id);
        tracker.track(id, ticket.ack).catch((error: unknown) => {
          sink.logger.warn({ err: error, updateId: String(id) }, "watermark not written");
        });
        void ticket.ack.then((ack) => {
          if (ack.kind === "retry") {
            // Not recorded (busy elsewhere, store down): hand it over again later.
            setTimeout(() => handed.delete(id), ack.retryAfterMs ?? pinnedMs).unref?.();
          } else if (ack.kind === "accept") {
            options.onAccept?.(u);
          }
          wake?.();
        });
      }
      if (tracker.pending().length > 0 && !signal.aborted) await pause(pinnedMs);
    }
  }

  return {
    health: (): ReceiverHealth => health.get(),
    async start() {
      if (loop) return;
      health.set("connecting", "starting");
      controller = new AbortController();
      const tracker = sink.watermark(options.source ?? "updates");
      await tracker.load();
      loop = run(tracker, controller.signal).then(
        () => {
          if (health.get().state !== "down") health.set("down", "stopped");
        },
        (error: unknown) => {
          health.set("down", `polling loop failed: ${(error as Error).message}`);
          sink.logger.error({ err: error }, "polling loop stopped");
        },
      );
    },
    async stop() {
      controller?.abort();
      await loop;
      loop = undefined;
    },
  };
}
