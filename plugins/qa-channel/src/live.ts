/**
 * Live behaviour of the QA channel: a typing indicator (`POST …/typing`, lapses after 5 s
 * unless repeated). Previews need nothing else — the QA platform edits and deletes messages, so
 * herald's preview modes work through `send.edit` / `send.delete`.
 *
 * @module
 */
import type { MessageLiveAdapter, MessageSendContext } from "@herald/plugin-sdk/channel-message";
import type { QaClient } from "./client.ts";
import { chatIdOf, threadIdOf } from "./send.ts";

/**
 * The live adapter.
 *
 * @param typingRefreshMs - how often the indicator is repeated while shown, in ms.
 */
export function createLive(client: QaClient, typingRefreshMs: number): MessageLiveAdapter {
  const typing = (on: boolean) => async (ctx: MessageSendContext) => {
    const thread = threadIdOf(ctx);
    await client.typing(
      chatIdOf(ctx.message.target),
      { typing: on, ...(thread !== undefined ? { thread_id: thread } : {}) },
      ctx.signal,
    );
  };
  return {
    typing: { refreshMs: typingRefreshMs, start: typing(true), stop: typing(false) },
    previews: { onCancel: "delete", onRecover: "delete" },
  };
}
