/**
 * Native streaming on Slack (`chat.startStream` / `appendStream` / `stopStream`, PLATFORMS.md
 * §5, §8; CASES C24). A stream is one message whose standard-markdown text grows by appends.
 *
 * - **Where.** Slack streams replies: in a DM, or in a channel with the recipient
 *   (`recipient_user_id` + `recipient_team_id`, from `message.recipient`); `thread_ts` is the
 *   thread root's, as for posts. Elsewhere `supports` is false and core uses a preview edited
 *   with `chat.update`.
 * - **Stop never doubles text.** `stopStream`'s `markdown_text` is *appended*, so the stop carries
 *   only what is not shown yet (`unshownStreamText`). When the shown text is uncertain or the
 *   final rewrote it, the stop carries nothing and `chat.update` sets the final text. A final
 *   tail longer than one call goes in as appends before the stop; if that stop fails, its repeat
 *   never appends the tail again (it may already show): it stops bare and sets the text.
 * - **A failing stop** (refused) is completed with `chat.update` on the stream's `ts`; a stop
 *   whose outcome is unknown is thrown, core repeats the (idempotent) finish, and the repeat finds
 *   `message_not_in_streaming_state` and sets the text with `chat.update` — once, never twice.
 *   If that fails too, core sends one fresh final and deletes the stream message.
 * - **Lifetime.** Slack ends a stream about 5 minutes after it started. A stream older than
 *   `streamRotateAfterMs` is stopped and the text continues in a new stream message (a code fence
 *   open at the cut is closed and re-opened). A stream Slack already ended
 *   (`message_not_in_streaming_state`) keeps what it shows; later text is set with `chat.update`,
 *   so nothing buffered is lost.
 *
 * Rotation and expiry are tracked in this process; after a restart the finish of a rotated
 * stream sets the final's text on the first segment only, and the receipt names the first
 * segment (docs/channels/slack.md, "Limits").
 *
 * @module
 */
import {
  type ChannelMessage,
  type LiveStreamFinal,
  type MessageLiveAdapter,
  type MessageReceiptPart,
  type MessageSendContext,
  unshownStreamText,
} from "@herald/plugin-sdk/channel-message";
import type { WebClient } from "@slack/web-api";
import { SLACK_STREAM_CHUNK_LIMIT, type SlackConfig } from "./config.ts";
import { classifyError } from "./errors.ts";
import { unitMetadata } from "./origin.ts";
import { messageRef, parseMessageRef, placementOf } from "./target.ts";

/** The SDK's native stream surface (`MessageLiveAdapter.stream`). */
type MessageLiveStreamAdapter = NonNullable<MessageLiveAdapter["stream"]>;

/** One stream as this process knows it. */
type StreamState = {
  channel: string;
  threadTs?: string;
  /** The current segment's `ts` (the first one until a rotation). */
  ts: string;
  /** When the current segment started (epoch ms). */
  startedAt: number;
  /** What the current segment shows. */
  shown: string;
  /** Where the current segment starts in the whole text (0 until a rotation). */
  offset: number;
  /** A fence re-opened at the top of the current segment (its text is not in the whole text). */
  prefix: string;
  /** Slack ended the stream: later text goes in with `chat.update`. */
  ended: boolean;
  /**
   * A stop that needed appends first failed part way: the stream may show some of its text, so
   * a repeat must not append it again (it stops bare and sets the text with `chat.update`).
   */
  uncertain?: boolean;
};

/** Splits text into pieces of at most `SLACK_STREAM_CHUNK_LIMIT`, never inside a surrogate pair. */
function pieces(text: string): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > SLACK_STREAM_CHUNK_LIMIT) {
    let cut = SLACK_STREAM_CHUNK_LIMIT;
    const code = rest.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  out.push(rest);
  return out;
}

/** The code fence open at the end of `text`: its opening line and its closing marker. */
function openFence(text: string): { line: string; close: string } | undefined {
  let open: { line: string; close: string } | undefined;
  for (const line of text.split("\n")) {
    const m = /^\s*(`{3,}|~{3,})(.*)$/.exec(line);
    if (!m) continue;
    const marker = m[1] as string;
    if (open === undefined) open = { line: `${marker}${m[2] ?? ""}`.trim(), close: marker };
    else if (marker.startsWith(open.close[0] ?? "`") && (m[2] ?? "").trim() === "")
      open = undefined;
  }
  return open;
}

const codeOf = (error: unknown) => classifyError(error).platformCode;

/** What the stream adapter needs. */
export type StreamDeps = {
  client: WebClient;
  config: Pick<SlackConfig, "replyInThread" | "replyBroadcast" | "streamRotateAfterMs">;
  secrets: readonly string[];
  clock?: () => number;
};

/** Whether Slack can stream `message` natively (see the module notes). */
export function canStream(message: ChannelMessage): boolean {
  if (message.target.kind === "direct") return true;
  return Boolean(message.recipient?.userId && message.recipient.teamId);
}

/** The native stream adapter (see the module notes). */
export function createStream(deps: StreamDeps): MessageLiveStreamAdapter {
  const { client, config } = deps;
  const clock = deps.clock ?? Date.now;
  const streams = new Map<string, StreamState>();

  function stateOf(ctx: MessageSendContext, part: MessageReceiptPart): StreamState {
    const known = streams.get(part.platformMessageId);
    if (known) return known;
    const { channel, ts } = parseMessageRef(
      part.platformMessageId,
      placementOf(ctx.message, config).channel,
    );
    // Not started by this process (a restart): what it shows is not known here.
    const state: StreamState = {
      channel,
      ts,
      startedAt: 0,
      shown: "",
      offset: 0,
      prefix: "",
      ended: false,
      ...(part.threadId ? { threadTs: part.threadId } : {}),
    };
    streams.set(part.platformMessageId, state);
    return state;
  }

  async function start(
    ctx: MessageSendContext,
    channel: string,
    threadTs: string | undefined,
    markdown: string,
  ) {
    const [first = "", ...rest] = pieces(markdown);
    const recipient = ctx.message.recipient;
    const answer = await client.chat.startStream({
      channel,
      markdown_text: first,
      ...(threadTs ? { thread_ts: threadTs } : {}),
      ...(recipient?.userId && recipient.teamId
        ? { recipient_user_id: recipient.userId, recipient_team_id: recipient.teamId }
        : {}),
    } as Parameters<WebClient["chat"]["startStream"]>[0]);
    const ts = answer.ts as string;
    for (const piece of rest) await client.chat.appendStream({ channel, ts, markdown_text: piece });
    return ts;
  }

  /** Stops a stream; true when Slack had already ended it. */
  async function stop(
    state: StreamState,
    text: string,
    ctx?: MessageSendContext,
  ): Promise<boolean> {
    const chunks = text ? pieces(text) : [""];
    // Appends before the stop change what the stream shows before the stop is known to land.
    if (chunks.length > 1) state.uncertain = true;
    try {
      for (const piece of chunks.slice(0, -1)) {
        await client.chat.appendStream({
          channel: state.channel,
          ts: state.ts,
          markdown_text: piece,
        });
      }
      const last = chunks.at(-1) ?? "";
      await client.chat.stopStream({
        channel: state.channel,
        ts: state.ts,
        ...(last ? { markdown_text: last } : {}),
        ...(ctx
          ? {
              metadata: unitMetadata({
                accountId: ctx.accountId,
                idempotencyKey: ctx.idempotencyKey,
                unitIndex: 0,
                origin: ctx.message.origin,
              }),
            }
          : {}),
      } as Parameters<WebClient["chat"]["stopStream"]>[0]);
      state.shown += text;
      state.uncertain = false;
      return false;
    } catch (error) {
      if (codeOf(error) === "message_not_in_streaming_state") return true;
      throw error;
    }
  }

  async function update(state: StreamState, text: string) {
    await client.chat.update({
      channel: state.channel,
      ts: state.ts,
      markdown_text: text,
    } as Parameters<WebClient["chat"]["update"]>[0]);
    state.shown = text;
  }

  return {
    supports: canStream,

    async begin(ctx, markdown) {
      const place = placementOf(ctx.message, config);
      const ts = await start(ctx, place.channel, place.threadTs, markdown);
      const part: MessageReceiptPart = {
        platformMessageId: messageRef(place.channel, ts),
        kind: "text",
        index: 0,
        ...(place.threadTs ? { threadId: place.threadTs } : {}),
      };
      streams.set(part.platformMessageId, {
        channel: place.channel,
        ts,
        startedAt: clock(),
        shown: markdown,
        offset: 0,
        prefix: "",
        ended: false,
        ...(place.threadTs ? { threadTs: place.threadTs } : {}),
      });
      return part;
    },

    async append(ctx, part, delta) {
      const state = stateOf(ctx, part);
      if (state.ended) return update(state, state.shown + delta);
      if (state.startedAt > 0 && clock() - state.startedAt >= config.streamRotateAfterMs) {
        // Rotate before Slack ends the stream: close an open fence, continue in a new message.
        const covered = state.shown.length - state.prefix.length;
        const fence = openFence(state.shown);
        const close = fence ? `\n${fence.close}` : "";
        const ended = await stop(state, close);
        if (ended && fence) await update(state, state.shown + close);
        const prefix = fence ? `${fence.line}\n` : "";
        const ts = await start(ctx, state.channel, state.threadTs, prefix + delta);
        Object.assign(state, {
          ts,
          startedAt: clock(),
          shown: prefix + delta,
          offset: state.offset + covered,
          prefix,
          ended: false,
        });
        return;
      }
      try {
        for (const piece of pieces(delta)) {
          await client.chat.appendStream({
            channel: state.channel,
            ts: state.ts,
            markdown_text: piece,
          });
        }
        state.shown += delta;
      } catch (error) {
        if (codeOf(error) !== "message_not_in_streaming_state") throw error;
        // Slack ended the stream early: what it shows stays; the rest goes in by update.
        state.ended = true;
        await update(state, state.shown + delta);
      }
    },

    async finish(ctx, part, final?: LiveStreamFinal) {
      const state = stateOf(ctx, part);
      // The stream's first message stays the live message's receipt: core keeps it (a rotated
      // stream's later segments are the rest of the same reply).
      const current = part;
      if (!final) {
        if (!state.ended) await stop(state, "");
        return current;
      }
      // The current segment's share of the final text.
      const segmentFinal = state.prefix + final.markdown.slice(state.offset);
      const rest =
        state.startedAt > 0 && !state.ended && !state.uncertain
          ? unshownStreamText(final)
          : undefined;
      if (rest !== undefined) {
        try {
          const ended = await stop(state, rest, ctx);
          if (!ended) return current;
        } catch (error) {
          // An unknown outcome: core repeats the finish (the repeat sees the stream ended).
          if (classifyError(error).evidence !== "not_dispatched") throw error;
          if (classifyError(error).kind === "rate_limit") throw error;
        }
      } else if (!state.ended) {
        await stop(state, "");
      }
      // Ended, refused, rewritten or uncertain: set the text (idempotent).
      await update(state, segmentFinal);
      return current;
    },
  };
}
