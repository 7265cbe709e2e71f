/**
 * A Telegram-like fake receive adapter (Bot API `Update` with a `message`), for receive tests.
 * Wire names stay here; core sees only {@link ChannelMessage}.
 *
 * @module
 */
import { z } from "zod";
import type { ChannelMessage } from "../../message/message.ts";
import type { ReceiveAckPolicy } from "../../message/policy.ts";
import type { ReceiveChannelAdapter } from "../types.ts";
import { parseInbound } from "../validate.ts";

/** The subset of a Bot API `Update` the fake accepts. */
export const teleUpdateSchema = z.object({
  update_id: z.number().int().nonnegative(),
  message: z.object({
    message_id: z.number().int().positive(),
    date: z.number().int().optional(),
    message_thread_id: z.number().int().optional(),
    chat: z.object({
      id: z.number().int(),
      type: z.enum(["private", "group", "supergroup", "channel"]),
    }),
    from: z.object({
      id: z.number().int().positive(),
      is_bot: z.boolean(),
      username: z.string().optional(),
    }),
    text: z.string().max(4096).optional(),
  }),
});

/** A raw update as the fake platform sends it. */
export type TeleUpdate = z.infer<typeof teleUpdateSchema>;

/** Options of {@link createFakeTelegramAdapter}. */
export type FakeTelegramOptions = {
  /** @defaultValue "telegram" */
  channel?: string;
  /** The bot's user id. @defaultValue 999 */
  botId?: number;
  /** @defaultValue "herald_bot" */
  botUsername?: string;
  /** The adapter's ack policy (a webhook would say `immediate`). */
  ackPolicy?: ReceiveAckPolicy;
};

/** Creates the fake adapter. Dedupe identity: `${chat.id}:${message_id}` (never `update_id`). */
export function createFakeTelegramAdapter(
  options: FakeTelegramOptions = {},
): ReceiveChannelAdapter {
  const channel = options.channel ?? "telegram";
  const botId = options.botId ?? 999;
  const username = options.botUsername ?? "herald_bot";
  const ackPolicy = options.ackPolicy;
  return {
    id: channel,
    receive: {
      normalize(raw, ctx) {
        const { message: m } = parseInbound(teleUpdateSchema, raw, channel);
        const kind =
          m.chat.type === "private" ? "direct" : m.chat.type === "channel" ? "channel" : "group";
        const text = m.text ?? "";
        const message: ChannelMessage = {
          id: `${channel}:${m.chat.id}:${m.message_id}`,
          channel,
          direction: "inbound",
          target: {
            kind,
            id: String(m.chat.id),
            ...(m.message_thread_id === undefined ? {} : { threadId: String(m.message_thread_id) }),
          },
          sender: { id: String(m.from.id), isBot: m.from.is_bot },
          body: { markdown: text },
          platformMessageId: `${m.chat.id}:${m.message_id}`,
          mentions: { self: text.includes(`@${username}`) },
          timestamp: (m.date ?? Math.floor(ctx.receivedAt / 1000)) * 1000,
          raw,
        };
        if (ctx.accountId !== undefined) message.accountId = ctx.accountId;
        return message;
      },
      selfIds: () => [String(botId)],
      ...(ackPolicy ? { ackPolicy: () => ackPolicy } : {}),
    },
  };
}

/** A valid update `updateId` for message `messageId` in `chatId` from a human. */
export function teleUpdate(
  updateId: number,
  overrides: {
    messageId?: number;
    chatId?: number;
    text?: string;
    fromId?: number;
    isBot?: boolean;
  } = {},
): TeleUpdate {
  const chatId = overrides.chatId ?? 1;
  return {
    update_id: updateId,
    message: {
      message_id: overrides.messageId ?? updateId,
      date: 1_735_689_600,
      chat: { id: chatId, type: chatId > 0 ? "private" : "supergroup" },
      from: { id: overrides.fromId ?? 42, is_bot: overrides.isBot ?? false },
      text: overrides.text ?? `hello ${updateId}`,
    },
  };
}
