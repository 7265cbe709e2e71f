/**
 * The QA channel's native stream (`live.stream`, config `nativeStream`): a stream message is
 * opened with `POST …/streams`, grows by appends, and is closed with `stop` — which, like
 * Slack's `chat.stopStream`, **appends** the text it carries. So `finish` sends only what the
 * stream does not show yet (`unshownStreamText`); when that is unknown (an append's outcome
 * was uncertain, or the final rewrote earlier text) it stops without text and replaces the
 * text with an edit — never doubling it (PLATFORMS §8, CASES C24). Finishing a stopped stream
 * again succeeds (recovery relies on it).
 *
 * @module
 */
import {
  type MessageLiveAdapter,
  type MessageReceiptPart,
  unshownStreamText,
} from "@herald/plugin-sdk/channel-message";
import type { QaClient } from "./client.ts";
import { QaApiError } from "./errors.ts";
import { encodeOrigin } from "./origin.ts";
import { chatIdOf, threadIdOf } from "./send.ts";

const isStopped = (error: unknown) =>
  error instanceof QaApiError && error.errorCode === "stream_stopped";

/** The native stream adapter. */
export function createStream(client: QaClient): NonNullable<MessageLiveAdapter["stream"]> {
  return {
    async begin(ctx, markdown) {
      const thread = threadIdOf(ctx);
      const metadata = encodeOrigin(ctx.message.origin);
      const message = await client.streamBegin(
        chatIdOf(ctx.message.target),
        {
          text: markdown,
          ...(thread !== undefined ? { thread_id: thread } : {}),
          client_key: ctx.unitIdempotencyKey,
          ...(metadata ? { metadata } : {}),
        },
        ctx.signal,
      );
      return {
        platformMessageId: message.id,
        kind: "text",
        index: 0,
        ...(message.thread_id !== undefined ? { threadId: message.thread_id } : {}),
      };
    },
    async append(ctx, stream, delta) {
      await client.streamAppend(
        chatIdOf(ctx.message.target),
        stream.platformMessageId,
        delta,
        ctx.signal,
      );
    },
    async finish(ctx, stream, final): Promise<MessageReceiptPart> {
      const chat = chatIdOf(ctx.message.target);
      const id = stream.platformMessageId;
      const rest = final ? unshownStreamText(final) : undefined;
      try {
        await client.streamStop(chat, id, rest === "" ? undefined : rest, ctx.signal);
        if (!final || rest !== undefined) return stream;
      } catch (error) {
        // Stopped already (a finish repeated by recovery): set the text below, idempotently.
        if (!isStopped(error)) throw error;
        if (!final) return stream;
      }
      await client.editMessage(chat, id, { text: final.markdown }, ctx.signal);
      return stream;
    },
  };
}
