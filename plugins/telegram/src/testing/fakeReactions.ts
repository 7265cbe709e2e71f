/**
 * The fake's `setMessageReaction`, as the Bot API describes it: it sets the bot's whole list of
 * reactions on a message (at most one emoji for a bot; an empty list clears it), answers `true`
 * whether or not anything changed, `REACTION_INVALID` for an emoji Telegram does not offer as a
 * reaction, `MESSAGE_ID_INVALID` for a message that is not there.
 *
 * Source: https://core.telegram.org/bots/api#setmessagereaction,
 * https://core.telegram.org/bots/api#reactiontypeemoji
 *
 * @module
 */
import type { FakeBotAccount, FakeTelegramCore } from "./fakeTypes.ts";
import { badRequest } from "./fakeWire.ts";

/** The emoji Telegram accepts as a reaction (`ReactionTypeEmoji.emoji`, Bot API 9.x). */
const REACTION_EMOJI = new Set(
  (
    "👍 👎 ❤ 🔥 🥰 👏 😁 🤔 🤯 😱 🤬 😢 🎉 🤩 🤮 💩 🙏 👌 🕊 🤡 🥱 🥴 😍 🐳 ❤‍🔥 🌚 🌭 💯 🤣 ⚡ 🍌 🏆 💔 " +
    "🤨 😐 🍓 🍾 💋 🖕 😈 😴 😭 🤓 👻 👨‍💻 👀 🎃 🙈 😇 😨 🤝 ✍ 🤗 🫡 🎅 🎄 ☃ 💅 🤪 🗿 🆒 💘 🙉 🦄 😘 💊 " +
    "🙊 😎 👾 🤷‍♂ 🤷 🤷‍♀ 😡"
  ).split(" "),
);

/** Message id → bot id → the bot's reaction list. */
const REACTIONS = new WeakMap<FakeTelegramCore, Map<number, Map<number, string[]>>>();

function tableOf(fake: FakeTelegramCore) {
  let table = REACTIONS.get(fake);
  if (!table) {
    table = new Map();
    REACTIONS.set(fake, table);
  }
  return table;
}

/** The reactions each bot has set on message `messageId` (bot id → emoji list). */
export function telegramReactionsOn(
  fake: FakeTelegramCore,
  messageId: number,
): Record<string, string[]> {
  const byBot = tableOf(fake).get(messageId) ?? new Map<number, string[]>();
  return Object.fromEntries([...byBot].filter(([, l]) => l.length > 0).map(([b, l]) => [b, l]));
}

/** `setMessageReaction` on the fake (see the module notes). */
export function setMessageReaction({
  fake,
  bot,
  p,
}: {
  fake: FakeTelegramCore;
  bot: FakeBotAccount;
  p: Record<string, unknown>;
}): true {
  const chat = fake.chats.get(Number(p.chat_id));
  if (!chat) throw badRequest("chat not found");
  const id = Number(p.message_id);
  const stored = fake.stored.get(id);
  if (!stored || stored.chatId !== chat.id || fake.state.get(String(id))?.deleted) {
    throw badRequest("MESSAGE_ID_INVALID");
  }
  const list = Array.isArray(p.reaction) ? (p.reaction as Array<Record<string, unknown>>) : [];
  if (list.length > 1) throw badRequest("REACTIONS_TOO_MANY");
  const emoji: string[] = [];
  for (const r of list) {
    if (r?.type !== "emoji" || !REACTION_EMOJI.has(String(r.emoji))) {
      throw badRequest("REACTION_INVALID");
    }
    emoji.push(String(r.emoji));
  }
  const table = tableOf(fake);
  const byBot = table.get(id) ?? new Map<number, string[]>();
  table.set(id, byBot);
  byBot.set(bot.id, emoji);
  return true;
}
