/**
 * The bot-author API (DESIGN §10): `gateway.onMessage(async (turn) => { await turn.reply(…);
 * turn.activity(…) })`. It runs inside a core turn scope (`runtime.turn`), so every message and
 * activity entry carries the turn's root id and the activity log can thread them.
 *
 * - `reply(text)` sends durably to the conversation (and thread) the message came from;
 * - `reply(asyncIterable)` streams: natively where the channel can (mode `auto`), else a live
 *   preview edited as chunks arrive, then the final through the durable send path;
 * - `activity(entry)` records tool calls, reasoning and the like for the activity log;
 * - `typing()` shows the channel's typing indicator until the next reply or the end of the
 *   turn (the gateway's `typing` option shows it automatically while the handler works).
 *
 * Everything a turn opens (typing indicators, live sessions) is stopped when the turn ends,
 * whatever the outcome. A reply that is stored but not delivered yet (`DeliveryPendingError`)
 * does not fail the turn: the message counts as handled and is not run again.
 *
 * Reply idempotency keys derive from the inbound message, so a redelivered or recovered message
 * never answers twice.
 *
 * @module
 */
import {
  type ChannelMessage,
  DeliveryPendingError,
  type LiveModeOption,
  type MessageReceipt,
  type MessageReceiveContext,
  type MessageRuntime,
  placeReply,
  type ReplyPlacement,
  streamReplyKey,
  type Turn,
  type TurnMessage,
  type TurnMessageInput,
  type TypingHandle,
} from "@herald/core";
import { contentOf, type InboundFile, inboundFiles, type ReplyContent } from "./features.ts";

/** Options of one reply. */
export type ReplyOptions = {
  /**
   * Live mode of a streamed reply: `auto` streams natively where the channel can for this
   * conversation (Slack `chat.startStream`), else edits a preview (`partial`), else sends
   * finished blocks; or one of `native`, `partial`, `block`, `progress` (see `LiveMode`).
   * @defaultValue "auto"
   */
  mode?: LiveModeOption;
  /**
   * Where the reply is shown: `inline`, `quote`, `thread` (the thread under the message, where
   * the channel has one), `broadcast` (Slack `reply_broadcast`).
   * @defaultValue the channel's default, where the message was
   */
  placement?: ReplyPlacement;
};

/** What a bot handler gets for one inbound message. */
export type BotTurn = {
  /** The inbound message (text in `message.body.markdown`). */
  readonly message: ChannelMessage;
  /** The text of the inbound message. */
  readonly text: string;
  /** The root turn id stamped on everything this turn produces. */
  readonly turnId: string;
  /** Aborted when the turn is interrupted or the message's processing lease is lost. */
  readonly signal: AbortSignal;
  /**
   * Replies with text, or with a stream of text chunks (each chunk appended). Resolves with
   * the final message's receipt once it is delivered.
   * @throws DeliveryFailedError / DeliveryPendingError from the send path.
   */
  reply(
    content: string | AsyncIterable<string> | ReplyContent,
    options?: ReplyOptions,
  ): Promise<MessageReceipt>;
  /**
   * Adds a reaction to the inbound message ([H23]), durably; the `n`-th `react(emoji)` of a
   * turn has one key, so a rerun never reacts twice and a replay never takes it off.
   * @throws NotSupportedError when the channel has no reactions.
   */
  react(emoji: string): Promise<MessageReceipt>;
  /** Removes this bot's reaction from the inbound message, durably. @throws NotSupportedError */
  unreact(emoji: string): Promise<MessageReceipt>;
  /**
   * Replies so only the sender sees it (Slack, Google Chat, qa). Not durable: the platform
   * cannot look an ephemeral message up. @throws NotSupportedError elsewhere.
   */
  replyEphemeral(text: string): Promise<MessageReceipt>;
  /**
   * Recent messages of this conversation (its thread, when the message is in one), oldest
   * first. @throws NotSupportedError on channels without a history API (Telegram).
   */
  history(options?: { limit?: number; before?: string }): Promise<ChannelMessage[]>;
  /** The files the user sent with the message, streamed on demand. */
  readonly files: readonly InboundFile[];
  /**
   * Records an activity entry (tool call, tool result, reasoning, subagent…) in the turn's
   * ledger; the activity log shows it in a thread under the user's message.
   */
  activity(entry: TurnMessageInput): Promise<TurnMessage>;
  /**
   * Shows the channel's typing indicator in the conversation, refreshed until `stop()`, the
   * next `reply` (stopped before the reply is sent, so it never shows under the answer), the
   * end of the turn, or `ttlMs` (default 60 s).
   * @throws NotImplementedError when the channel has no typing indicator.
   */
  typing(options?: { ttlMs?: number }): TypingHandle;
};

/** Options of {@link createBotTurn}. */
export type BotTurnOptions = {
  /**
   * Show the typing indicator while the handler works (on channels that have one), until the
   * first reply or the end of the turn. @defaultValue false
   */
  typing?: boolean | { ttlMs?: number };
};

/** Builds the bot turn for one receive context inside a core turn. */
export function createBotTurn(
  runtime: MessageRuntime,
  ctx: MessageReceiveContext,
  turn: Turn,
  options: BotTurnOptions = {},
): BotTurn {
  const input = ctx.input;
  let streams = 0;
  const typings = new Set<TypingHandle>();
  const showTyping = (o: { ttlMs?: number } = {}) => {
    const handle = runtime.typing(
      {
        channel: input.channel,
        target: input.target,
        ...(input.accountId !== undefined ? { accountId: input.accountId } : {}),
      },
      o,
    );
    typings.add(handle);
    return handle;
  };
  // Stopped (the call in flight aborted and settled) before a reply is sent.
  const stopTyping = async () => {
    const open = [...typings];
    typings.clear();
    await Promise.all(open.map((h) => h.stop()));
  };
  if (options.typing && runtime.adapter(input.channel, input.accountId)?.live?.typing) {
    showTyping(typeof options.typing === "object" ? options.typing : {});
  }
  const reactions = new Map<string, number>();
  const react = (emoji: string, remove: boolean) => {
    const op = `${remove ? "remove" : "add"}:${emoji}`;
    const n = (reactions.get(op) ?? 0) + 1;
    reactions.set(op, n);
    return runtime.react({
      channel: input.channel,
      ...(input.accountId !== undefined ? { accountId: input.accountId } : {}),
      target: input.target,
      messageId: input.platformMessageId ?? input.id,
      emoji,
      ...(remove ? { remove: true } : {}),
      idempotencyKey: `react:${input.channel}:${input.accountId ?? ""}:${input.id}:${op}:${n}`,
    });
  };
  let ephemerals = 0;
  return {
    message: input,
    files: inboundFiles(runtime, input),
    react: (emoji) => react(emoji, false),
    unreact: (emoji) => react(emoji, true),
    replyEphemeral(text) {
      if (!input.sender) throw new TypeError("replyEphemeral: the inbound message has no sender");
      return runtime.sendEphemeral({
        channel: input.channel,
        ...(input.accountId !== undefined ? { accountId: input.accountId } : {}),
        target: input.target,
        userId: input.sender.id,
        message: {
          id: `ephemeral:${input.channel}:${input.id}:${++ephemerals}`,
          body: { markdown: text },
        },
      });
    },
    history(o = {}) {
      const threadId = input.target.threadId;
      return runtime.history({
        channel: input.channel,
        ...(input.accountId !== undefined ? { accountId: input.accountId } : {}),
        target: input.target,
        limit: o.limit ?? 20,
        ...(threadId !== undefined ? { threadId } : {}),
        ...(o.before !== undefined ? { before: o.before } : {}),
      });
    },
    text: input.body?.plain ?? input.body?.markdown ?? "",
    turnId: turn.turnId,
    signal: turn.signal,
    activity: (entry) => turn.activity(entry),
    typing: (o) => showTyping(o),
    async reply(content, options = {}) {
      await stopTyping();
      const placement = options.placement === undefined ? {} : { placement: options.placement };
      if (typeof content === "string") {
        return turn.reply(content, { onDurable: () => ctx.repliesDurable(), ...placement });
      }
      if (!(Symbol.asyncIterator in content)) {
        const rich = await contentOf(content);
        return turn.reply(rich.body ?? { markdown: "" }, {
          onDurable: () => ctx.repliesDurable(),
          ...placement,
          ...(rich.attachments ? { attachments: rich.attachments } : {}),
          ...(rich.actions ? { actions: rich.actions } : {}),
        });
      }
      streams += 1;
      const key = streamReplyKey(input, streams);
      const session = await runtime.live(
        {
          channel: input.channel,
          ...placeReply(input, options.placement),
          id: key,
          ...(input.accountId !== undefined ? { accountId: input.accountId } : {}),
          // Native streams may need whom they answer (Slack: recipient user and team).
          ...(input.sender
            ? {
                recipient: {
                  userId: input.sender.id,
                  ...(input.target.spaceId !== undefined ? { teamId: input.target.spaceId } : {}),
                },
              }
            : {}),
        },
        { idempotencyKey: key, mode: options.mode ?? "auto" },
      );
      ctx.repliesDurable(); // the live intent is written: the platform may be answered
      let text = "";
      try {
        for await (const chunk of content) {
          if (turn.signal.aborted) break;
          text += chunk;
          session.update(text);
        }
      } catch (error) {
        await session.cancel("error");
        throw error;
      }
      let receipt: MessageReceipt;
      try {
        receipt = await session.finalize(text);
      } catch (error) {
        // Stored and still being delivered: the answer exists, record it like a delivered one.
        if (error instanceof DeliveryPendingError) await turn.activity({ role: "assistant", text });
        throw error;
      }
      await turn.activity({ role: "assistant", text });
      return receipt;
    },
  };
}
