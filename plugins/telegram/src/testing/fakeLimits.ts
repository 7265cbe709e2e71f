/**
 * Telegram's flood limits on the fake's sends (optional, {@link FakeTelegramOptions.limits}):
 * sliding windows per bot, per chat and per group chat, answered like the Bot API — 429
 * `Too Many Requests: retry after N` with `parameters.retry_after` in whole seconds. A send
 * over a limit is not applied.
 *
 * Source: https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this
 *
 * @module
 */
import type { FakeChat } from "./fakeTypes.ts";
import { FakeBotApiError } from "./fakeWire.ts";

/** Limits the fake enforces on sends. Every field unset is not enforced. */
export type FakeTelegramLimits = {
  /** Sends per second per bot (Telegram: about 30). */
  perBotPerSecond?: number;
  /** Sends per second per chat (Telegram: about 1). */
  perChatPerSecond?: number;
  /** Sends per minute per group or supergroup (Telegram: 20). */
  perGroupPerMinute?: number;
};

/** The windows of one fake; `check` throws the 429 or records the send. */
export class SendLimiter {
  readonly #limits: FakeTelegramLimits;
  readonly #clock: () => number;
  readonly #sentAt = new Map<string, number[]>();
  /** 429 answers given. */
  rateLimited = 0;

  constructor(limits: FakeTelegramLimits, clock: () => number = Date.now) {
    this.#limits = limits;
    this.#clock = clock;
  }

  /**
   * Admits a send of `bot` to `chat` or throws a 429 with `retry_after`.
   * @throws FakeBotApiError (429)
   */
  check(botId: number, chat: FakeChat): void {
    const now = this.#clock();
    const windows: Array<[string, number | undefined, number]> = [
      [`bot:${botId}`, this.#limits.perBotPerSecond, 1_000],
      [`chat:${botId}:${chat.id}`, this.#limits.perChatPerSecond, 1_000],
    ];
    if (chat.type === "group" || chat.type === "supergroup") {
      windows.push([`group:${botId}:${chat.id}`, this.#limits.perGroupPerMinute, 60_000]);
    }
    let waitMs = 0;
    for (const [key, limit, intervalMs] of windows) {
      if (limit === undefined) continue;
      const times = (this.#sentAt.get(key) ?? []).filter((t) => t > now - intervalMs);
      this.#sentAt.set(key, times);
      if (times.length >= limit) waitMs = Math.max(waitMs, (times[0] ?? now) + intervalMs - now);
    }
    if (waitMs > 0) {
      this.rateLimited += 1;
      const retryAfter = Math.max(1, Math.ceil(waitMs / 1_000));
      throw new FakeBotApiError(429, `Too Many Requests: retry after ${retryAfter}`, retryAfter);
    }
    for (const [key, limit] of windows) if (limit !== undefined) this.#sentAt.get(key)?.push(now);
  }
}
