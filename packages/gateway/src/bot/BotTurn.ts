/**
 * The bot-author API (DESIGN §10): `gateway.onMessage(async (turn) => { await turn.reply(…) })`.
 * A reply is sent to the conversation (and thread) the message came from, durably; a streamed
 * reply (an async iterable of text chunks) goes through live previews where the channel
 * supports them and its final through the durable send path.
 *
 * Reply idempotency keys derive from the inbound message, so a redelivered or recovered
 * message never answers twice.
 *
 * @module
 */
import type {
  ChannelMessage,
  MessageReceipt,
  MessageReceiveContext,
  MessageRuntime,
  MessageTarget,
} from "@herald/core";

/** Options of one reply. */
export type ReplyOptions = {
  /** Reply in the message's thread (or topic) when it has one. @defaultValue true */
  inThread?: boolean;
  /** Live mode for streamed replies. @defaultValue "partial" */
  mode?: "partial" | "block" | "progress";
};

/** What a bot handler gets for one inbound message. */
export type BotTurn = {
  /** The inbound message (text in `message.body.markdown`). */
  readonly message: ChannelMessage;
  /** The plain text of the inbound message. */
  readonly text: string;
  /** Aborted when the message's processing lease is lost or the gateway stops. */
  readonly signal: AbortSignal;
  /**
   * Replies with text or a stream of text chunks (each chunk appended). Resolves with the
   * final message's receipt once it is delivered.
   * @throws DeliveryFailedError / DeliveryPendingError from the send path.
   */
  reply(content: string | AsyncIterable<string>, options?: ReplyOptions): Promise<MessageReceipt>;
};

/** Builds the turn object for one receive context. */
export function createBotTurn(runtime: MessageRuntime, ctx: MessageReceiveContext): BotTurn {
  const input = ctx.input;
  let replies = 0;
  const targetFor = (inThread: boolean): MessageTarget => {
    const { threadId, ...rest } = input.target;
    return inThread && threadId ? { ...rest, threadId } : rest;
  };
  return {
    message: input,
    text: input.body?.plain ?? input.body?.markdown ?? "",
    signal: ctx.signal,
    async reply(content, options = {}) {
      replies += 1;
      const key = `reply:${ctx.id}:${replies}`;
      const target = targetFor(options.inThread ?? true);
      const relation = {
        kind: "reply" as const,
        inboundMessageId: input.id,
        ...(input.platformMessageId ? { replyToId: input.platformMessageId } : {}),
        ...(target.threadId ? { threadId: target.threadId } : {}),
      };
      const base = {
        channel: input.channel,
        target,
        relation,
        ...(input.accountId !== undefined ? { accountId: input.accountId } : {}),
      };
      if (typeof content === "string") {
        const message: ChannelMessage = {
          ...base,
          id: key,
          direction: "outbound",
          body: { markdown: content },
        };
        return runtime.send(message, {
          idempotencyKey: key,
          onDurable: () => ctx.repliesDurable(),
        });
      }
      const session = await runtime.live(
        { ...base, id: key },
        { idempotencyKey: key, mode: options.mode ?? "partial" },
      );
      ctx.repliesDurable();
      let text = "";
      try {
        for await (const chunk of content) {
          if (ctx.signal.aborted) break;
          text += chunk;
          session.update(text);
        }
      } catch (error) {
        await session.cancel("error");
        throw error;
      }
      return session.finalize(text);
    },
  };
}
