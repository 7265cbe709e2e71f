/**
 * History on Discord ([H23]; PLATFORMS.md §10): `history.list` is Get Channel Messages, `GET
 * /channels/{channel}/messages?limit&before` (at most 100; a thread is its own channel), through
 * discord.js's REST. Each message is normalized as an inbound `MESSAGE_CREATE` would be (system
 * messages left out), oldest first; the bot's own are `direction: "outbound"`.
 *
 * Source: https://discord.com/developers/docs/resources/message#get-channel-messages
 *
 * @module
 */
import type {
  ChannelMessage,
  MessageHistoryAdapter,
  MessageReceiveAdapter,
} from "@herald/plugin-sdk/channel-message";
import type { DiscordRest } from "./client.ts";
import type { DiscordIdentity } from "./origin.ts";
import { channelOf, parseMessageRef } from "./send.ts";

/** Discord's most messages per call. */
export const DISCORD_HISTORY_LIMIT = 100;

/** The adapter's `history`; `receive` normalizes each message. */
export function createHistory(
  rest: DiscordRest,
  receive: MessageReceiveAdapter<unknown>,
  identity: DiscordIdentity,
): MessageHistoryAdapter {
  return {
    async list(ctx, query) {
      const channel = query.threadId ?? channelOf(query.target);
      const params = new URLSearchParams({
        limit: String(Math.max(1, Math.min(query.limit, DISCORD_HISTORY_LIMIT))),
      });
      if (query.before) params.set("before", parseMessageRef(query.before, channel).id);
      const messages = await rest.call<Array<Record<string, unknown>>>({
        method: "GET",
        route: `/channels/${channel}/messages`,
        query: params,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      const out: ChannelMessage[] = [];
      for (const d of [...messages].reverse()) {
        const result = await receive.normalize(
          { t: "MESSAGE_CREATE", s: null, d },
          {
            channel: ctx.channel,
            ...(ctx.accountId !== undefined ? { accountId: ctx.accountId } : {}),
            receivedAt: Date.now(),
          },
        );
        if ("kind" in result) continue;
        const own = result.sender?.id !== undefined && identity.ids().includes(result.sender.id);
        out.push({
          ...result,
          ...(ctx.accountId !== undefined ? { accountId: ctx.accountId } : {}),
          ...(own ? { direction: "outbound" as const } : {}),
        });
      }
      return out;
    },
  };
}
