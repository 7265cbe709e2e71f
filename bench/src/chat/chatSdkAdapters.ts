/**
 * Chat SDK's adapter for each chat bench channel (`@chat-adapter/*` 4.41.0), with its defaults,
 * pointed at herald's fake through the option each adapter documents — no patching:
 *
 * - Telegram `apiBaseUrl` (`{apiBaseUrl}/bot<token>/<method>`);
 * - Slack `apiUrl` (else `SLACK_API_URL`), handed to `@slack/web-api`'s `slackApiUrl`;
 * - Discord `apiUrl` (else `DISCORD_API_URL`; it includes the version, `…/api/v10`). Only text
 *   posts go there: file uploads and interaction replies use the hard-coded
 *   `https://discord.com/api/v10` (not used here);
 * - Google Chat `apiUrl` (else `GOOGLE_CHAT_API_URL`), handed to `@googleapis/chat`'s `rootUrl`,
 *   with `auth` an `OAuth2Client` holding the fake's access token (a service-account `JWT`
 *   would fetch a token from Google).
 *
 * Webhook-only settings the adapters demand (signing secret, public key, endpoint URL) are
 * given dummy values: the bench only sends.
 *
 * @module
 */
import { createDiscordAdapter } from "@chat-adapter/discord";
import { createGoogleChatAdapter } from "@chat-adapter/gchat";
import { createSlackAdapter } from "@chat-adapter/slack";
import { createTelegramAdapter } from "@chat-adapter/telegram";
import { accessTokenCredentials } from "@herald/plugin-googlechat";
import type { Adapter, Logger } from "chat";
import type { ChatConnection } from "./schedule.ts";

/** One channel's Chat SDK adapter and the Chat SDK channel id of a target. */
export type ChatSdkChannel = {
  /** The adapter's name (the prefix of its channel ids). */
  name: string;
  adapter: Adapter;
  channelId(target: string): string;
};

/** Chat SDK's adapter for `c.channel`. */
export function chatSdkChannel(c: ChatConnection, logger: Logger): ChatSdkChannel {
  switch (c.channel) {
    case "telegram":
      return {
        name: "telegram",
        adapter: createTelegramAdapter({
          botToken: c.token,
          apiBaseUrl: c.apiUrl,
          mode: "webhook",
          secretToken: "bench-secret",
          logger,
        }),
        channelId: (id) => `telegram:${id}`,
      };
    case "slack":
      return {
        name: "slack",
        adapter: createSlackAdapter({
          botToken: c.token,
          signingSecret: c.signingSecret ?? "bench-signing-secret",
          apiUrl: c.apiUrl,
          // Only quiets @slack/web-api's own warning per 429 and reset (`LogLevel.ERROR`).
          webClientOptions: { logLevel: "error" as never },
          logger,
        }),
        channelId: (id) => `slack:${id}`,
      };
    case "discord":
      return {
        name: "discord",
        adapter: createDiscordAdapter({
          botToken: c.token,
          applicationId: c.applicationId ?? "0",
          publicKey: "0".repeat(64),
          apiUrl: `${c.apiUrl}/v10`,
          logger,
        }),
        channelId: (id) => `discord:${c.guildId}:${id}`,
      };
    case "googlechat":
      return {
        name: "gchat",
        adapter: createGoogleChatAdapter({
          // Chat SDK's own @googleapis/chat takes any google-auth-library client as `auth`.
          auth: accessTokenCredentials(c.token).auth as never,
          apiUrl: c.apiUrl,
          endpointUrl: "https://bench.invalid/gchat",
          logger,
        }),
        channelId: (space) => `gchat:${space}`,
      };
  }
}
