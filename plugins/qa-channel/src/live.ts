/**
 * Live behaviour of the QA channel: a typing indicator (`POST …/typing`, lapses after 5 s
 * unless repeated) and, with `nativeStream`, the platform's native stream (`stream.ts`). Previews need nothing else — the QA platform edits and deletes messages, so
 * herald's preview modes work through `send.edit` / `send.delete`.
 *
 * @module
 */
import type { MessageLiveAdapter, MessageSendContext } from "@herald/plugin-sdk/channel-message";
import type { QaClient } from "./client.ts";
import { chatIdOf, threadIdOf } from "./send.ts";
import { createStream } from "./stream.ts";

/**
 * The live adapter.
 *
 * @param typingRefreshMs - how often the indicator is repeated while shown, in ms.
 * @param nativeStream - add the native stream (`live.stream`, see `stream.ts`).
 */
export function createLive(
  client: QaClient,
  typingRefreshMs: number,
  nativeStream = false,
): MessageLiveAdapter {
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
    ...(nativeStream ? { stream: createStream(client) } : {}),
    previews: { onCancel: "delete", onRecover: "delete" },
  };
}
