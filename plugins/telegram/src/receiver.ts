/**
 * The long-polling receiver: `getUpdates` with the offset under herald's control.
 *
 * `getUpdates(offset)` confirms — deletes on Telegram's side — every update below `offset`, so
 * the offset is only ever the durable watermark + 1: the lowest update whose work is neither
 * recorded nor done (per the receive ack policy) stays on Telegram until it is. After a crash the
 * poller resumes there; updates that had finished are fetched again and answered as duplicates
 * by herald's dedupe (CASES C07).
 *
 * While an update is unfinished, `getUpdates` returns it again at once, so the poller stops
 * long-polling and asks every `pinnedPollIntervalMs` (or as soon as an update finishes) —
 * updates are handed over once per process. Unlike grammY's `bot.stop()`, `stop()` confirms
 * nothing.
 *
 * **Pacing** (CASES C42). A poll answered empty is followed by the next one no sooner than
 * `emptyPollGapMs` after it started: Telegram holds the long poll, so this never waits there,
 * but a server that answers `[]` at once (a proxy, an emulator) would otherwise be asked in a hot
 * loop. A failed poll waits `retryDelayMs`, doubled for each failure in a row up to 30 s, or the
 * 429's `retry_after` when longer (as grammY's own polling loop honours it).
 *
 * grammY's `bot.start()` / `@grammyjs/runner` cannot be used: they confirm an update by
 * advancing the offset as soon as it is handed to the middleware, not when herald's work on it
 * is durable.
 *
 * Source: https://core.telegram.org/bots/api#getupdates
 *
 * @module
 */

import {
  type ChannelReceiver,
  type ChannelReceiverSink,
  receiverHealth,
  sleep,
  type WatermarkTracker,
} from "@herald/plugin-sdk/channel-message";
import type { Api } from "grammy";
import { grammySignal } from "./client.ts";
import { TELEGRAM_ALLOWED_UPDATES, type TelegramPollingConfig } from "./config.ts";
import { TelegramApiError } from "./errors.ts";
import { kindOf, updateIdOf } from "./updates.ts";

/** Most time between two `getUpdates` after failures, in ms. */
const MAX_RETRY_DELAY_MS = 30_000;

/** Answers a pressed inline button so the client stops its spinner (best effort). */
export function answerCallback(api: Api, update: unknown): void {
  if (kindOf(update) !== "callback_query") return;
  const id = (update as { callback_query?: { id?: unknown } }).callback_query?.id;
  if (typeof id === "string") void api.answerCallbackQuery(id).catch(() => {});
}

/** Options of {@link createPollingReceiver}. */
export type PollingReceiverOptions = {
  /** A client whose timeout exceeds `pollTimeoutSeconds`. */
  api: Api;
  sink: ChannelReceiverSink;
  config: TelegramPollingConfig;
  /** Epoch-ms clock of the health timestamps and the poll pacing. @defaultValue Date.now */
  clock?: () => number;
  /**
   * Waits `ms` milliseconds or until `signal` aborts (tests pass one that moves a manual
   * clock). @defaultValue the SDK's abortable `sleep`
   */
  sleep?: (ms: number, signal: AbortSignal) => Promise<unknown>;
};

/**
 * Creates the polling receiver. `start()` resolves once the watermark is loaded (and the
 * webhook deleted); polling continues in the background until `stop()`.
 */
export function createPollingReceiver(options: PollingReceiverOptions): ChannelReceiver {
  const { api, sink, config } = options;
  let controller: AbortController | undefined;
  let loop: Promise<void> | undefined;
  const health = receiverHealth(options.clock);
  const clock = options.clock ?? Date.now;
  const wait = options.sleep ?? sleep;

  async function run(tracker: WatermarkTracker, signal: AbortSignal): Promise<void> {
    /** Update ids handed to herald in this process and not yet below the watermark. */
    const handed = new Set<number>();
    let wake: (() => void) | undefined;
    let delayMs = config.retryDelayMs;
    /** Sleeps `ms`, or until stopped or woken (a pinned update finished). */
    const pause = async (ms: number) => {
      const woken = new AbortController();
      wake = () => woken.abort();
      await wait(ms, AbortSignal.any([signal, woken.signal]));
      wake = undefined;
    };
    /** When the last poll that came back empty started (epoch ms), if the last one did. */
    let emptyPollAt: number | undefined;

    while (!signal.aborted) {
      const after = tracker.resumeAfter();
      for (const id of handed) if (after !== undefined && BigInt(id) <= after) handed.delete(id);
      const pinned = tracker.pending().length > 0;
      if (emptyPollAt !== undefined) {
        const gapMs = emptyPollAt + config.emptyPollGapMs - clock();
        if (gapMs > 0) await wait(gapMs, signal);
        if (signal.aborted) break;
      }
      const polledAt = clock();
      let updates: unknown[];
      try {
        updates = await api.getUpdates(
          {
            ...(after !== undefined ? { offset: Number(after) + 1 } : {}),
            limit: config.limit,
            timeout: pinned ? 0 : config.pollTimeoutSeconds,
            allowed_updates: [...TELEGRAM_ALLOWED_UPDATES],
          },
          grammySignal(signal),
        );
      } catch (error) {
        if (signal.aborted) break;
        if (
          error instanceof TelegramApiError &&
          (error.errorCode === 401 || error.errorCode === 404)
        ) {
          // The token was revoked while running: stop; the gateway re-opens the account, whose
          // getMe check stops it with the fix.
          health.set("down", `getUpdates: token rejected (${error.errorCode})`);
          sink.logger.error(
            { err: error },
            "telegram: the bot token was rejected: polling stopped",
          );
          return;
        }
        const conflict = error instanceof TelegramApiError && error.errorCode === 409;
        health.set("connecting", conflict ? "getUpdates conflict (409)" : "getUpdates failing");
        sink.logger.warn(
          { err: error },
          conflict
            ? "telegram: getUpdates conflict (409): another poller or a webhook is active for this bot"
            : "telegram: getUpdates failed; retrying",
        );
        const retryAfterMs =
          error instanceof TelegramApiError && error.parameters.retry_after !== undefined
            ? error.parameters.retry_after * 1_000
            : 0;
        emptyPollAt = undefined;
        await pause(Math.max(delayMs, retryAfterMs));
        delayMs = Math.min(delayMs * 2, MAX_RETRY_DELAY_MS);
        continue;
      }
      delayMs = config.retryDelayMs;
      emptyPollAt = updates.length === 0 ? polledAt : undefined;
      health.set("up");
      // Everything Telegram hands over goes to herald (dedupe stops replays): an id at or below
      // the offset asked for means the id sequence restarted, and the watermark follows it.
      // Only updates already handed over in this process and still unfinished are not re-sent.
      const restarted = updates.some((u) => {
        const id = updateIdOf(u);
        return id !== undefined && after !== undefined && BigInt(id) <= after;
      });
      if (restarted) handed.clear(); // ids of the old sequence
      const fresh = updates.filter((u) => {
        const id = updateIdOf(u);
        return id === undefined || !handed.has(id);
      });
      // Every update of the batch is begun before any completes: none can be passed over.
      for (const u of fresh) {
        const id = updateIdOf(u);
        if (id !== undefined) tracker.begin(id);
      }
      for (const u of fresh) {
        const id = updateIdOf(u);
        const ticket = sink.receive(u);
        if (id === undefined) {
          sink.logger.warn({}, "telegram: update without an integer update_id (dead-lettered)");
          continue;
        }
        handed.add(id);
        tracker.track(id, ticket.ack).catch((error: unknown) => {
          sink.logger.warn({ err: error, updateId: id }, "telegram: watermark not written");
        });
        void ticket.ack.then((ack) => {
          if (ack.kind === "retry") {
            // Not ours yet (busy elsewhere, store down): hand it over again later.
            setTimeout(
              () => handed.delete(id),
              ack.retryAfterMs ?? config.pinnedPollIntervalMs,
            ).unref();
          } else if (ack.kind === "accept") {
            answerCallback(api, u);
          }
          wake?.();
        });
      }
      if (tracker.pending().length > 0 && !signal.aborted) {
        await pause(config.pinnedPollIntervalMs);
      }
    }
  }

  return {
    health: health.get,
    async start() {
      if (loop) return;
      health.set("connecting", "starting");
      controller = new AbortController();
      const tracker = sink.watermark("updates");
      await tracker.load();
      if (config.deleteWebhook) {
        try {
          await api.deleteWebhook({ drop_pending_updates: false });
        } catch (error) {
          sink.logger.warn({ err: error }, "telegram: deleteWebhook failed; polling anyway");
        }
      }
      loop = run(tracker, controller.signal).then(
        () => {
          if (health.get().state !== "down") health.set("down", "stopped");
        },
        (error: unknown) => {
          health.set("down", `polling loop failed: ${(error as Error).message}`);
          sink.logger.error({ err: error }, "telegram: polling loop stopped");
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
