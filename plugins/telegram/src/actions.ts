/**
 * Buttons on Telegram ([H23]; PLATFORMS.md §10): `ChannelMessage.actions` become an inline
 * keyboard on the message's last unit — a button's `callback_data` is `MessageAction.id` (at most
 * 64 bytes, else a `TelegramRenderError` naming the action, before any call), a link a `url`
 * button; up to 8 buttons per row. A press arrives as a `callback_query` update: the receiver
 * answers it (`answerCallbackQuery`) as soon as it is recorded, and normalize makes it an
 * `InboundAction` (deduped by the query's id).
 *
 * Sources: https://core.telegram.org/bots/api#inlinekeyboardbutton,
 * https://core.telegram.org/bots/api#answercallbackquery
 *
 * @module
 */
import type { InlineKeyboardButton } from "@grammyjs/types";
import type { ChannelMessage, InboundAction } from "@herald/plugin-sdk/channel-message";
import { TelegramRenderError } from "./errors.ts";
import { messageRef } from "./send.ts";
import { targetOf } from "./target.ts";
import type { TelegramUpdate } from "./updates.ts";

/** Telegram's limits on inline keyboards. */
export const TELEGRAM_ACTION_LIMITS = {
  /** `callback_data`: 1-64 bytes. */
  callbackDataBytes: 64,
  /** Buttons per row. */
  perRow: 8,
  /** Buttons per keyboard. */
  buttons: 100,
} as const;

/** An inline keyboard button as sent (a callback or a URL button). */
export type InlineButton = InlineKeyboardButton.CallbackButton | InlineKeyboardButton.UrlButton;

/**
 * The inline keyboard rows of `actions`.
 * @throws TelegramRenderError naming the action whose id is over 64 bytes (or empty), or when
 * there are more than 100 buttons.
 */
export function keyboardOf(actions: NonNullable<ChannelMessage["actions"]>): InlineButton[][] {
  if (actions.length > TELEGRAM_ACTION_LIMITS.buttons) {
    throw new TelegramRenderError(
      `actions: ${actions.length} buttons, Telegram allows ${TELEGRAM_ACTION_LIMITS.buttons}`,
    );
  }
  const buttons = actions.map((a, i): InlineButton => {
    if (a.kind === "link") return { text: a.label, url: a.url };
    const bytes = Buffer.byteLength(a.id, "utf8");
    if (bytes === 0 || bytes > TELEGRAM_ACTION_LIMITS.callbackDataBytes) {
      throw new TelegramRenderError(
        `actions[${i}].id is ${bytes} bytes: Telegram's callback_data takes 1-${TELEGRAM_ACTION_LIMITS.callbackDataBytes}`,
      );
    }
    return { text: a.label, callback_data: a.id };
  });
  const rows: InlineButton[][] = [];
  for (let i = 0; i < buttons.length; i += TELEGRAM_ACTION_LIMITS.perRow) {
    rows.push(buttons.slice(i, i + TELEGRAM_ACTION_LIMITS.perRow));
  }
  return rows;
}

/** The `InboundAction` of a callback query (the receiver answers the query). */
export function actionOf(
  channel: string,
  q: NonNullable<TelegramUpdate["callback_query"]>,
  raw: unknown,
  receivedAt: number,
): InboundAction {
  const name = [q.from.first_name, q.from.last_name].filter(Boolean).join(" ") || q.from.username;
  return {
    kind: "action",
    id: `callback:${q.id}`,
    channel,
    target: q.message ? targetOf(q.message) : { kind: "direct", id: String(q.from.id) },
    sender: {
      id: String(q.from.id),
      isBot: q.from.is_bot,
      ...(name ? { displayName: name } : {}),
    },
    actionId: q.data ?? "",
    ...(q.message
      ? { messageId: messageRef(String(q.message.chat.id), q.message.message_id) }
      : {}),
    timestamp: receivedAt,
    raw,
    ack: "answerCallbackQuery",
  };
}
