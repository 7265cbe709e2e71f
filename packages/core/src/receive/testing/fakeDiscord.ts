/**
 * A Discord-like fake receive adapter (gateway `MESSAGE_CREATE` dispatches), for the in-flight
 * duplicate and bot ping-pong tests.
 *
 * @module
 */
import { z } from "zod";
import type { ChannelMessage } from "../../message/message.ts";
import type { ReceiveChannelAdapter } from "../types.ts";
import { parseInbound } from "../validate.ts";

const snowflake = z.string().regex(/^\d{1,20}$/, "expected a snowflake (digits)");

/** The subset of a gateway dispatch the fake accepts. */
export const discordDispatchSchema = z.object({
  t: z.literal("MESSAGE_CREATE"),
  d: z.object({
    id: snowflake,
    channel_id: snowflake,
    guild_id: snowflake.optional(),
    author: z.object({
      id: snowflake,
      bot: z.boolean().optional(),
      username: z.string().optional(),
    }),
    content: z.string(),
    mentions: z.array(z.object({ id: snowflake })).default([]),
  }),
});

export type DiscordDispatch = z.input<typeof discordDispatchSchema>;

/** Creates the fake adapter for the bot `botId`. Identity: the message id (`d.id`). */
export function createFakeDiscordAdapter(options: { botId?: string } = {}): ReceiveChannelAdapter {
  const botId = options.botId ?? "1000";
  return {
    id: "discord",
    receive: {
      normalize(raw, ctx) {
        const { d } = parseInbound(discordDispatchSchema, raw, "discord");
        const message: ChannelMessage = {
          id: `discord:${d.id}`,
          channel: "discord",
          direction: "inbound",
          target: {
            kind: d.guild_id ? "channel" : "direct",
            id: d.channel_id,
            ...(d.guild_id ? { spaceId: d.guild_id } : {}),
          },
          sender: { id: d.author.id, isBot: d.author.bot === true },
          body: { markdown: d.content },
          platformMessageId: d.id,
          mentions: {
            self: d.mentions.some((m) => m.id === botId),
            users: d.mentions.map((m) => m.id),
          },
          raw,
        };
        if (ctx.accountId !== undefined) message.accountId = ctx.accountId;
        return message;
      },
      selfIds: () => [botId],
    },
  };
}

/** A valid `MESSAGE_CREATE` in guild channel 500 (or a DM when `guild` is false). */
export function discordMessage(
  id: string,
  author: { id: string; bot?: boolean },
  content = "hi",
  extra: { channelId?: string; guild?: boolean; mentions?: string[] } = {},
): DiscordDispatch {
  return {
    t: "MESSAGE_CREATE",
    d: {
      id,
      channel_id: extra.channelId ?? "500",
      ...(extra.guild === false ? {} : { guild_id: "77" }),
      author,
      content,
      mentions: (extra.mentions ?? []).map((m) => ({ id: m })),
    },
  };
}
