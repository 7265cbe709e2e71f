/**
 * The QA platform's native stream API (`/api/v1/chats/:chat/streams`), modelled on Slack's
 * `chat.startStream` / `appendStream` / `stopStream`: a stream is a bot message that grows by
 * appends until it is stopped; `stop` **appends** the text it carries (what makes C24's doubled
 * reply possible for a careless adapter). Calls are faultable as ops `stream_begin`,
 * `stream_append` and `stream_stop`.
 *
 * @module
 */
import type { z } from "@herald/plugin-sdk/channel-message";
import type { PlatformOp, VisibleMessage } from "@herald/plugin-sdk/testing";
import { qaEditBodySchema, qaPostBodySchema, qaStreamStopBodySchema } from "../../wire.ts";
import { apiKit, type QaContext } from "./apiKit.ts";
import type { QaBot, QaPlatformCore } from "./platformTypes.ts";

/** Registers the stream API; `open` holds the ids of streams not stopped yet. */
export function registerStreamApi(platform: QaPlatformCore): void {
  const { server, state } = platform;
  const open = new Set<string>();
  const { fail, authed, body } = apiKit(platform);

  /** The bot's stream message `:id` in `:chat`, or the error answer. */
  function ownStream(c: QaContext, bot: QaBot) {
    const chat = c.req.param("chat") ?? "";
    const m = state.get(c.req.param("id") ?? "");
    if (!m || m.deleted || m.chat !== chat) return fail(404, "message_not_found", "no such stream");
    if (m.author.id !== bot.id)
      return fail(403, "forbidden", "bots stream only their own messages");
    return m;
  }

  /** The open stream `:id` the bot owns and the request body, or the error answer. */
  async function openStream<T>(c: QaContext, bot: QaBot, schema: z.ZodType<T>) {
    const m = ownStream(c, bot);
    if (m instanceof Response) return m;
    const input = await body(c, schema);
    if (input instanceof Response) return input;
    if (!open.has(m.id)) return fail(409, "stream_stopped", "the stream was stopped");
    return { m, input };
  }

  function tooLong(text: string): Response | undefined {
    return text.length > platform.maxTextLength
      ? fail(400, "text_too_long", `text is ${text.length} > ${platform.maxTextLength}`)
      : undefined;
  }

  server.route(
    "POST",
    "/api/v1/chats/:chat/streams",
    "stream_begin",
    authed(async (c, bot) => {
      const chat = c.req.param("chat") ?? "";
      if (!platform.chat(chat)) return fail(404, "chat_not_found", `chat ${chat} not found`);
      const input = await body(c, qaPostBodySchema);
      if (input instanceof Response) return input;
      if (input.text.trim() === "") return fail(400, "text_empty", "stream text is empty");
      const long = tooLong(input.text);
      if (long) return long;
      const { message, duplicate } = state.post({
        chat,
        text: input.text,
        author: { id: bot.id, name: bot.name, bot: true },
        ...(input.thread_id !== undefined ? { thread: input.thread_id } : {}),
        ...(input.client_key !== undefined ? { key: input.client_key } : {}),
        ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
      });
      if (!duplicate) open.add(message.id);
      return c.json({ ok: true, message: platform.toWire(message), duplicate });
    }),
  );

  /** Appends `extra` to the stream message `m`, or answers `text_too_long` (nothing changed). */
  function grow(m: VisibleMessage, extra: string): Response | undefined {
    const long = tooLong(m.text + extra);
    if (long) return long;
    state.edit(m.id, m.text + extra);
    return undefined;
  }

  /** A route on the bot's open stream `:id` (see {@link openStream}) with a `schema` body. */
  function streamRoute<T>(
    action: string,
    op: PlatformOp,
    schema: z.ZodType<T>,
    handler: (c: QaContext, m: VisibleMessage, input: T) => Response,
  ): void {
    server.route(
      "POST",
      `/api/v1/chats/:chat/streams/:id/${action}`,
      op,
      authed(async (c, bot) => {
        const found = await openStream(c, bot, schema);
        if (found instanceof Response) return found;
        return handler(c, found.m, found.input);
      }),
    );
  }

  streamRoute("append", "stream_append", qaEditBodySchema, (c, m, input) => {
    const refused = grow(m, input.text);
    if (refused) return refused;
    return c.json({ ok: true });
  });

  streamRoute("stop", "stream_stop", qaStreamStopBodySchema, (c, m, input) => {
    if (input.text) {
      const refused = grow(m, input.text);
      if (refused) return refused;
    }
    open.delete(m.id);
    return c.json({ ok: true });
  });
}
