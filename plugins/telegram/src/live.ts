/**
 * Live behaviour on Telegram. Previews need nothing here: herald sends a preview with
 * `sendMessage` and edits it with `editMessageText` through the send adapter, at most one
 * update per `previewIntervalMs` per chat (`capabilities.live.editRate`). This adds the typing
 * indicator — `sendChatAction("typing")`, which Telegram shows for 5 s or until the bot's next
 * message, so herald repeats it every `typingRefreshMs` until the session ends or its hard TTL
 * (60 s by default) passes — and the preview policy.
 *
 * Source: https://core.telegram.org/bots/api#sendchataction,
 * https://core.telegram.org/bots/api#editmessagetext
 *
 * @module
 */

import type { MessageLiveAdapter } from "@herald/plugin-sdk/channel-message";
import type { Api } from "grammy";
import { grammySignal } from "./client.ts";
import type { TelegramConfig } from "./config.ts";
import { chatIdOf, chatParam, threadParamOf } from "./send.ts";

/**
 * The live adapter. Telegram cannot hide a typing indicator, so there is no `stop`: it lapses
 * by itself, and the final message ends it at once.
 */
export function createLive(
  api: Api,
  config: Pick<TelegramConfig, "typingRefreshMs" | "previewStaleAfterMs">,
): MessageLiveAdapter {
  return {
    typing: {
      refreshMs: config.typingRefreshMs,
      async start(ctx) {
        const thread = threadParamOf(ctx);
        await api.sendChatAction(
          chatParam(chatIdOf(ctx.message.target)),
          "typing",
          thread !== undefined ? { message_thread_id: thread } : {},
          grammySignal(ctx.signal),
        );
      },
    },
    previews: {
      onCancel: "delete",
      onRecover: "delete",
      staleAfterMs: config.previewStaleAfterMs,
    },
  };
}
