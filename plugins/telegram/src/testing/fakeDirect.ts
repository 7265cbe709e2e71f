/**
 * The fake's `getChat`, as the Bot API describes it: the chat's `ChatFullInfo` when the bot
 * knows the chat — for a person, only once they started the bot (a private chat exists) — else
 * `400 Bad Request: chat not found`; `403 Forbidden: bot was blocked by the user` for a
 * private chat that blocked the bot.
 *
 * Source: https://core.telegram.org/bots/api#getchat
 *
 * @module
 */
import type { FakeBotAccount, FakeTelegramCore } from "./fakeTypes.ts";
import { badRequest, FakeBotApiError } from "./fakeWire.ts";

/** `getChat` on the fake (see the module notes). */
export function getChat({
  fake,
  p,
}: {
  fake: FakeTelegramCore;
  bot: FakeBotAccount;
  p: Record<string, unknown>;
}): Record<string, unknown> {
  const chat = fake.chats.get(Number(p.chat_id));
  if (!chat) throw badRequest("chat not found");
  if (chat.blocked) throw new FakeBotApiError(403, "Forbidden: bot was blocked by the user");
  return {
    ...fake.chatJson(chat),
    // ChatFullInfo's required fields (Bot API 9.x), with Telegram's defaults.
    accent_color_id: 0,
    max_reaction_count: 11,
    accepted_gift_types: {
      unlimited_gifts: false,
      limited_gifts: false,
      unique_gifts: false,
      premium_subscription: false,
      gifts_from_channels: false,
    },
  };
}
