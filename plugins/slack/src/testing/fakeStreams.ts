/**
 * The fake's native streams (`chat.startStream` / `appendStream` / `stopStream`, ops
 * `stream_begin` / `stream_append` / `stream_stop`), as Slack runs them (PLATFORMS.md §5, §8):
 * a stream is a message whose `markdown_text` grows by appends; `stopStream` **appends** its own
 * `markdown_text` (a stop carrying the whole text doubles it, C24) and ends the stream; a stream
 * lives `streamLifetimeMs` (about 5 minutes) server-side, after which appends and stops answer
 * `message_not_in_streaming_state` and the text shown so far stays; outside a DM the recipient
 * (`recipient_user_id` + `recipient_team_id`) is required; `chat.update` on the stream's `ts`
 * replaces the text and ends the stream.
 *
 * @module
 */
import { method, postAsBot } from "./fakeMethods.ts";
import type { FakeSlackCore } from "./fakeTypes.ts";
import { fail, jsonField, ok } from "./fakeWire.ts";

/** Slack's `markdown_text` limit per stream call. */
const CHUNK_LIMIT = 12_000;

/** Registers the three stream methods. */
export function registerStreamMethods(fake: FakeSlackCore): void {
  const live = (channel: string, ts: string) => {
    const stream = fake.streams.get(`${channel}:${ts}`);
    if (!stream?.open) return undefined;
    if (Date.now() - stream.startedAt > fake.streamLifetimeMs) {
      stream.open = false;
      return undefined;
    }
    return stream;
  };

  method(fake, "chat.startStream", "stream_begin", (f, args, bot) => {
    const text = typeof args.markdown_text === "string" ? args.markdown_text : "";
    if (text.length > CHUNK_LIMIT) return fail("msg_too_long");
    const channel = f.channels.get(String(args.channel ?? ""));
    if (channel && channel.type !== "im" && (!args.recipient_user_id || !args.recipient_team_id)) {
      return fail("invalid_arguments", {
        response_metadata: {
          messages: ["[ERROR] recipient_user_id and recipient_team_id are required outside DMs"],
        },
      });
    }
    const posted = postAsBot(f, "chat.startStream", args, bot, text);
    if (posted instanceof Response) return posted;
    f.streams.set(`${posted.channel}:${posted.ts}`, { startedAt: Date.now(), open: true });
    return ok({ channel: posted.channel, ts: posted.ts });
  });

  method(fake, "chat.appendStream", "stream_append", (f, args, bot) => {
    const channel = String(args.channel ?? "");
    const ts = String(args.ts ?? "");
    const stored = f.message(channel, ts);
    if (!stored) return fail("message_not_found");
    if (stored.user !== bot.userId) return fail("cant_update_message");
    const text = typeof args.markdown_text === "string" ? args.markdown_text : "";
    if (text.length > CHUNK_LIMIT) return fail("msg_too_long");
    if (!live(channel, ts)) return fail("message_not_in_streaming_state");
    const now = f.state.get(stored.visibleId)?.text ?? "";
    f.state.edit(stored.visibleId, now + text);
    return ok({ channel, ts });
  });

  method(fake, "chat.stopStream", "stream_stop", (f, args, bot) => {
    const channel = String(args.channel ?? "");
    const ts = String(args.ts ?? "");
    const stored = f.message(channel, ts);
    if (!stored) return fail("message_not_found");
    if (stored.user !== bot.userId) return fail("cant_update_message");
    const stream = live(channel, ts);
    if (!stream) return fail("message_not_in_streaming_state");
    const text = typeof args.markdown_text === "string" ? args.markdown_text : "";
    if (text.length > CHUNK_LIMIT) return fail("msg_too_long");
    const metadata = jsonField(args.metadata);
    if (metadata && typeof metadata === "object") {
      stored.metadata = metadata as NonNullable<typeof stored.metadata>;
    }
    if (text) f.state.edit(stored.visibleId, (f.state.get(stored.visibleId)?.text ?? "") + text);
    stream.open = false;
    return ok({ channel, ts });
  });
}
