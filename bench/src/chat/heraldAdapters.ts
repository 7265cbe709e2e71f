/**
 * herald's plugin for each chat bench channel, built as a user builds it: the plugin's config
 * schema with its defaults (declared rate limits, `unknownSendPolicy: "hold"`, and per channel
 * what it has to settle a send whose answer was lost — Slack reconciles through history,
 * Discord resends under its nonce, Google Chat under its requestId / messageId, Telegram holds),
 * pointed at the fake; only the request timeout is set (5 s) so a hung call ends within a run.
 *
 * @module
 */
import {
  createDiscordAdapter,
  DISCORD_CHANNEL_ID,
  discordConfigSchema,
} from "@herald/plugin-discord";
import {
  accessTokenCredentials,
  createGoogleChatAdapter,
  GOOGLE_CHAT_CHANNEL_ID,
  googleChatConfigSchema,
} from "@herald/plugin-googlechat";
import type { ChannelMessageAdapter, MessageTarget } from "@herald/plugin-sdk/channel-message";
import { createSlackAdapter, SLACK_CHANNEL_ID, slackConfigSchema } from "@herald/plugin-slack";
import { createTelegramAdapter, telegramConfigSchema } from "@herald/plugin-telegram";
import type { SenderConfig } from "./schedule.ts";

const REQUEST_TIMEOUT_MS = 5_000;

/** One channel's herald adapter and how the schedule's targets are addressed on it. */
export type HeraldChannel = {
  adapter: ChannelMessageAdapter;
  /** The channel id messages are enqueued with. */
  channel: string;
  target(id: string): MessageTarget;
};

/** herald's adapter for `c.channel`, with `c.herald` on top of the plugin's defaults. */
export function heraldChannel(c: SenderConfig): HeraldChannel {
  const options = c.herald ?? {};
  switch (c.channel) {
    case "telegram": {
      const config = telegramConfigSchema.parse({
        apiRoot: c.apiUrl,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        ...options,
      });
      return {
        adapter: createTelegramAdapter(config, c.token),
        channel: "telegram",
        target: (id) => ({ kind: "direct", id }),
      };
    }
    case "slack": {
      const config = slackConfigSchema.parse({
        slackApiUrl: c.apiUrl,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        ...options,
      });
      return {
        adapter: createSlackAdapter(config, {
          token: c.token,
          ...(c.signingSecret ? { secrets: [c.signingSecret] } : {}),
        }),
        channel: SLACK_CHANNEL_ID,
        target: (id) => ({ kind: "group", id }),
      };
    }
    case "discord": {
      const config = discordConfigSchema.parse({
        apiBase: c.apiUrl,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        ...options,
      });
      return {
        adapter: createDiscordAdapter(config, c.token),
        channel: DISCORD_CHANNEL_ID,
        target: (id) => ({ kind: "group", id, ...(c.guildId ? { spaceId: c.guildId } : {}) }),
      };
    }
    case "googlechat": {
      const config = googleChatConfigSchema.parse({
        credentials: { type: "access_token" },
        rootUrl: c.apiUrl,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        ...options,
      });
      return {
        adapter: createGoogleChatAdapter(config, accessTokenCredentials(c.token)),
        channel: GOOGLE_CHAT_CHANNEL_ID,
        target: (id) => ({ kind: "group", id }),
      };
    }
  }
}
