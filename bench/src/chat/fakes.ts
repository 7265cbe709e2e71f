/**
 * herald's fake platforms as the chat bench runs them: each on 127.0.0.1 with the platform's
 * documented limits enforced (PLATFORMS.md §3b; 429 answers, counted) and every 10th accepted
 * send answered with a connection reset — the message is visible, the sender does not know
 * (Telegram's own `resetEveryNthAcceptedSend`, the other fakes' shared
 * `faults.resetEveryNthAccepted`). What a run counts is the bot's visible messages.
 *
 * @module
 */
import {
  FAKE_BOT as DISCORD_BOT,
  FakeDiscord,
  type FakeDiscordOptions,
} from "@herald/plugin-discord/testing";
import { FAKE_ACCESS_TOKEN, FakeGoogleChat } from "@herald/plugin-googlechat/testing";
import {
  FakeSlack,
  type FakeSlackOptions,
  FAKE_BOT as SLACK_BOT,
} from "@herald/plugin-slack/testing";
import { FakeTelegram, FAKE_BOT as TELEGRAM_BOT } from "@herald/plugin-telegram/testing";
import type { ChatChannel, ChatConnection } from "./schedule.ts";

/** One channel's running fake, in the bench's terms. */
export type BenchPlatform = {
  connection: ChatConnection;
  /** The texts of the bot's visible messages, over every target. */
  visibleTexts(): string[];
  /** 429 answers the fake gave so far: to sends, and to other calls (Slack's history reads). */
  rateLimited(): { sends: number; other: number };
  close(): Promise<void>;
};

/** The documented limits each fake enforces in the bench (the table's caption). */
export const LIMITS: Record<ChatChannel, string> = {
  telegram: "30 sends/s per bot, 1/s per chat, 20/min per group (429 + retry_after)",
  slack:
    "chat.postMessage 1/s per channel; conversations.history 1 read/min, 15 a page (apps outside the Marketplace; 429 + Retry-After)",
  discord: "5 messages per 5 s per channel bucket (429 + X-RateLimit-* headers)",
  googlechat: "1 write/s per space (429 RESOURCE_EXHAUSTED, no Retry-After)",
};

/** Slack's history read limit for apps outside the Marketplace (PLATFORMS.md §8), in ms. */
const SLACK_HISTORY_INTERVAL_MS = 60_000;
/** Discord's per-channel message bucket (5 per 5 s; the plugin declares the same). */
const DISCORD_BUCKETS: FakeDiscordOptions["buckets"] = { limit: 5, windowMs: 5_000 };

function countCalls429(server: { calls: readonly { op: string; outcome: string }[] }) {
  const limited = server.calls.filter((c) => c.outcome === "ok 429" || c.outcome === "rate_limit");
  const sends = limited.filter((c) => c.op === "send").length;
  return { sends, other: limited.length - sends };
}

/** Starts `channel`'s fake with `targets` conversations; every `resetEvery`-th accepted send is reset. */
export async function startPlatform(
  channel: ChatChannel,
  targets: number,
  resetEvery: number,
): Promise<BenchPlatform> {
  const n = Array.from({ length: targets });
  switch (channel) {
    case "telegram": {
      const fake = await FakeTelegram.start({
        limits: { perBotPerSecond: 30, perChatPerSecond: 1, perGroupPerMinute: 20 },
      });
      const ids = n.map(() => fake.createChat({ type: "private" }).id);
      fake.resetEveryNthAcceptedSend(resetEvery);
      return {
        connection: {
          channel,
          apiUrl: fake.apiRoot,
          token: TELEGRAM_BOT.token,
          targets: ids.map(String),
        },
        visibleTexts: () =>
          ids.flatMap((id) => fake.messages(id, { authorId: TELEGRAM_BOT.id }).map((m) => m.text)),
        rateLimited: () => ({ sends: fake.limiter?.rateLimited ?? 0, other: 0 }),
        close: () => fake.close(),
      };
    }
    case "slack": {
      const options: FakeSlackOptions = {
        postsPerChannelPerSecond: 1,
        historyIntervalMs: SLACK_HISTORY_INTERVAL_MS,
        historyPageLimit: 15,
      };
      const fake = await FakeSlack.start(options);
      const ids = n.map((_, i) => fake.createChannel({ name: `bench-${i}` }).id);
      fake.faults.resetEveryNthAccepted(resetEvery, "send");
      return {
        connection: {
          channel,
          apiUrl: fake.apiUrl,
          token: SLACK_BOT.token,
          targets: ids,
          signingSecret: SLACK_BOT.signingSecret,
        },
        visibleTexts: () =>
          ids.flatMap((id) =>
            fake.messages(id).flatMap((v) => (v.author.id === SLACK_BOT.userId ? [v.text] : [])),
          ),
        rateLimited: () => countCalls429(fake.server),
        close: () => fake.close(),
      };
    }
    case "discord": {
      const fake = await FakeDiscord.start({ buckets: DISCORD_BUCKETS });
      const ids = n.map(() => fake.createChannel({ type: "text" }).id);
      fake.faults.resetEveryNthAccepted(resetEvery, "send");
      return {
        connection: {
          channel,
          apiUrl: fake.apiBase,
          token: DISCORD_BOT.token,
          targets: ids,
          guildId: fake.guildId,
          applicationId: DISCORD_BOT.applicationId,
        },
        visibleTexts: () =>
          ids.flatMap((id) =>
            fake.messages(id).flatMap((v) => (v.author.id === DISCORD_BOT.id ? [v.text] : [])),
          ),
        rateLimited: () => countCalls429(fake.server),
        close: () => fake.close(),
      };
    }
    case "googlechat": {
      const fake = await FakeGoogleChat.start({ writesPerSecondPerSpace: 1 });
      const spaces = n.map((_, i) => fake.createSpace("SPACE", `bench ${i}`).name);
      fake.faults.resetEveryNthAccepted(resetEvery, "send");
      return {
        connection: { channel, apiUrl: fake.rootUrl, token: FAKE_ACCESS_TOKEN, targets: spaces },
        visibleTexts: () =>
          spaces.flatMap((space) =>
            fake.store.messages({ space }).map((m) => fake.store.textOf(m)),
          ),
        rateLimited: () => countCalls429(fake.server),
        close: () => fake.close(),
      };
    }
  }
}
