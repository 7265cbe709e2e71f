/**
 * Direct messages on Telegram ([H23]; PLATFORMS.md §10): a private chat's id is the user's id,
 * so `directMessages.open` returns `{ kind: "direct", id: userId }` — after checking with
 * `getChat` that the chat exists. A bot may write only to people who started it (or wrote to
 * it) first: for anyone else Telegram answers `400 chat not found` (and a send `403 Forbidden:
 * bot can't initiate conversation with a user`), which becomes
 * `DirectMessageUnavailableError` with reason `user_never_started_bot`; a user who blocked the
 * bot (`403 … blocked by the user`) reason `bot_blocked`.
 *
 * Ephemeral replies and history have no Bot API: capabilities `ephemeral` and `history` are
 * absent, and core throws `NotSupportedError`.
 *
 * Source: https://core.telegram.org/bots/api#getchat, https://core.telegram.org/bots/faq
 *
 * @module
 */
import {
  DirectMessageUnavailableError,
  type MessageDirectAdapter,
} from "@herald/plugin-sdk/channel-message";
import type { Api } from "grammy";
import { grammySignal } from "./client.ts";
import { TelegramApiError } from "./errors.ts";

/** The reason a DM cannot be opened, from Telegram's answer (undefined: not such an answer). */
export function directRefusal(error: unknown): string | undefined {
  if (!(error instanceof TelegramApiError)) return undefined;
  const text = error.description.toLowerCase();
  if (text.includes("blocked by the user")) return "bot_blocked";
  if (text.includes("chat not found") || text.includes("can't initiate conversation")) {
    return "user_never_started_bot";
  }
  return undefined;
}

/** The adapter's `directMessages` (see the module notes). */
export function createDirect(channel: string, api: Api): MessageDirectAdapter {
  return {
    async open(ctx, { userId }) {
      const id = Number(userId);
      if (!Number.isSafeInteger(id) || id <= 0) {
        throw new DirectMessageUnavailableError(channel, userId, "not_a_user_id");
      }
      try {
        const chat = await api.getChat(id, grammySignal(ctx.signal));
        if (chat.type !== "private") {
          throw new DirectMessageUnavailableError(channel, userId, "not_a_user_id");
        }
      } catch (error) {
        const reason = directRefusal(error);
        if (reason)
          throw new DirectMessageUnavailableError(channel, userId, reason, { cause: error });
        throw error;
      }
      return { kind: "direct", id: String(id) };
    },
  };
}
