/**
 * The long-polling receiver: `getUpdates` with the offset under herald's control.
 *
 * `getUpdates(offset)` confirms — deletes on Telegram's side — every update below `offset`, so
 * the offset is only ever the durable watermark + 1: the lowest update whose work is neither
 * recorded nor done (per the receive ack policy) stays on Telegram until it is. After a crash the
 * poller resumes there; updates that had finished are fetched again and answered as duplicates
 * by herald's dedupe (CASES C07).
 *
 The loop is the SDK's `pollingReceiver` (the one copy): while an update is unfinished,
 * `getUpdates` returns it again at once, so the poller stops long-polling and asks every
 * `pinnedPollIntervalMs` (or as soon as an update finishes) — updates are handed over once per
 * process. Unlike grammY's `bot.stop()`, `stop()` confirms nothing. A 401/404 (the token was
 * revoked while running) stops polling with a `ChannelAccountError`.
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
  ChannelAccountError,
  type ChannelReceiver,
  type ChannelReceiverSink,
  pollingReceiver,
} from "@herald/plugin-sdk/channel-message";
import type { Api } from "grammy";
import { grammySignal } from "./client.ts";
import { TELEGRAM_ALLOWED_UPDATES, type TelegramPollingConfig } from "./config.ts";
import { TelegramApiError } from "./errors.ts";
import { TELEGRAM_CHANNEL_ID } from "./receive.ts";
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
  /** The account, named by the error that stops polling on a revoked token. */
  accountId?: string | undefined;
  /** Epoch-ms clock of the health timestamps and the poll pacing. @defaultValue Date.now */
  clock?: () => number;
  /**
   * Waits `ms` milliseconds or until `signal` aborts (tests pass one that moves a manual
   * clock). @defaultValue the SDK's abortable `sleep`
   */
  sleep?: (ms: number, signal: AbortSignal) => Promise<unknown>;
};

/** What a failed `getUpdates` means to the loop: a revoked token stops it; a 409 is named. */
function pollFailure(error: unknown, options: PollingReceiverOptions): unknown {
  if (!(error instanceof TelegramApiError)) return error;
  if (error.errorCode === 401 || error.errorCode === 404) {
    // The gateway re-opens the account, whose getMe check stops it with the fix.
    return new ChannelAccountError(
      TELEGRAM_CHANNEL_ID,
      options.accountId ?? "(receiver)",
      `getUpdates: token rejected (${error.errorCode})`,
      "check the bot token with @BotFather",
      { cause: error },
    );
  }
  if (error.errorCode === 409) {
    options.sink.logger.warn(
      { err: error },
      "telegram: getUpdates conflict (409): another poller or a webhook is active for this bot",
    );
  }
  return error;
}

/**
 * Creates the polling receiver. `start()` resolves once the webhook is deleted and the
 * watermark loaded; polling continues in the background until `stop()`.
 */
export function createPollingReceiver(options: PollingReceiverOptions): ChannelReceiver {
  const { api, sink, config } = options;
  const polling = pollingReceiver<unknown>({
    sink,
    async poll({ after, longPoll, signal }) {
      try {
        return await api.getUpdates(
          {
            ...(after !== undefined ? { offset: Number(after) + 1 } : {}),
            limit: config.limit,
            timeout: longPoll ? config.pollTimeoutSeconds : 0,
            allowed_updates: [...TELEGRAM_ALLOWED_UPDATES],
          },
          grammySignal(signal),
        );
      } catch (error) {
        throw pollFailure(error, options);
      }
    },
    idOf: updateIdOf,
    emptyPollGapMs: config.emptyPollGapMs,
    pinnedPollIntervalMs: config.pinnedPollIntervalMs,
    retryDelayMs: config.retryDelayMs,
    maxRetryDelayMs: MAX_RETRY_DELAY_MS,
    onAccept: (update) => answerCallback(api, update),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
  });
  let started = false;
  return {
    ...(polling.health ? { health: polling.health } : {}),
    async start() {
      if (started) return;
      started = true;
      if (config.deleteWebhook) {
        try {
          await api.deleteWebhook({ drop_pending_updates: false });
        } catch (error) {
          sink.logger.warn({ err: error }, "telegram: deleteWebhook failed; polling anyway");
        }
      }
      await polling.start?.();
    },
    async stop() {
      await polling.stop?.();
      started = false;
    },
  };
}
