/**
 * The QA platform's bot API (`/api/v1`, `Authorization: Bearer <token>`). Every route is a
 * faultable platform call tagged with its op (`send`, `edit`, `delete`, `typing`, `read`);
 * errors answer `{ ok: false, error: { code, description } }`.
 *
 * @module
 */
import { streamSSE } from "@herald/plugin-sdk/testing";
import {
  type QaWireEvent,
  qaEditBodySchema,
  qaPostBodySchema,
  qaTypingBodySchema,
} from "../../wire.ts";
import { apiKit, type QaContext } from "./apiKit.ts";
import type { QaBot, QaPlatformCore } from "./platformTypes.ts";

/** How often an idle event stream sends a comment line, in ms (keeps proxies from closing it). */
const HEARTBEAT_MS = 15_000;

/** Registers the bot API on the platform's server. */
export function registerBotApi(platform: QaPlatformCore): void {
  const { server, state } = platform;
  const { fail, authed, body } = apiKit(platform);

  function checkText(text: string): Response | undefined {
    if (text.trim() === "") return fail(400, "text_empty", "message text is empty");
    if (text.length > platform.maxTextLength) {
      return fail(
        400,
        "text_too_long",
        `text is ${text.length} > ${platform.maxTextLength} UTF-16 units`,
      );
    }
    return undefined;
  }

  function ownMessage(c: QaContext, bot: QaBot) {
    const chat = c.req.param("chat") ?? "";
    const m = state.get(c.req.param("id") ?? "");
    if (!platform.chat(chat)) return fail(404, "chat_not_found", `chat ${chat} not found`);
    if (!m || m.deleted || m.chat !== chat) {
      return fail(404, "message_not_found", "message to change not found");
    }
    if (m.author.id !== bot.id)
      return fail(403, "forbidden", "bots change only their own messages");
    return m;
  }

  server.route(
    "GET",
    "/api/v1/me",
    "read",
    authed((c, bot) => c.json({ ok: true, bot: { id: bot.id, name: bot.name } })),
  );

  server.route(
    "POST",
    "/api/v1/chats/:chat/messages",
    "send",
    authed(async (c, bot) => {
      const chat = c.req.param("chat") ?? "";
      if (!platform.chat(chat)) return fail(404, "chat_not_found", `chat ${chat} not found`);
      const input = await body(c, qaPostBodySchema);
      if (input instanceof Response) return input;
      // A file's caption may be empty.
      const bad =
        input.file_id !== undefined && input.text === "" ? undefined : checkText(input.text);
      if (bad) return bad;
      if (input.file_id !== undefined && !platform.extras.file(input.file_id)) {
        return fail(404, "file_not_found", `file ${input.file_id} not found`);
      }
      if (input.thread_id !== undefined && !platform.threadExists(chat, input.thread_id)) {
        return fail(404, "thread_not_found", `thread ${input.thread_id} not found in chat ${chat}`);
      }
      const extras = {
        ...(input.file_id !== undefined ? { fileIds: [input.file_id] } : {}),
        ...(input.buttons !== undefined ? { buttons: input.buttons } : {}),
      };
      const { message, duplicate } = platform.postWithExtras(extras, () =>
        state.post({
          chat,
          text: input.text,
          author: { id: bot.id, name: bot.name, bot: true },
          ...(input.thread_id !== undefined ? { thread: input.thread_id } : {}),
          ...(input.reply_to_id !== undefined ? { replyTo: input.reply_to_id } : {}),
          ...(input.client_key !== undefined ? { key: input.client_key } : {}),
          ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
        }),
      );
      return c.json({ ok: true, message: platform.toWire(message), duplicate });
    }),
  );

  server.route(
    "GET",
    "/api/v1/chats/:chat/messages",
    "read",
    authed((c) => {
      const chat = c.req.param("chat") ?? "";
      if (!platform.chat(chat)) return fail(404, "chat_not_found", `chat ${chat} not found`);
      const key = c.req.query("client_key");
      if (key !== undefined) {
        return c.json({
          ok: true,
          messages: state.byKey(key, chat).map((m) => platform.toWire(m)),
        });
      }
      // History ([H23]): `thread_id`, `before` (a message id), `limit` (newest `limit`, oldest first).
      const thread = c.req.query("thread_id");
      const before = c.req.query("before");
      const limit = c.req.query("limit");
      let found = state.messages({ chat });
      if (thread !== undefined) found = found.filter((m) => m.id === thread || m.thread === thread);
      if (before !== undefined) found = found.filter((m) => Number(m.id) < Number(before));
      if (limit !== undefined) {
        const n = Number(limit);
        if (!Number.isInteger(n) || n < 1 || n > 100)
          return fail(400, "bad_request", "limit must be an integer in 1..100");
        found = found.slice(-n);
      }
      return c.json({ ok: true, messages: found.map((m) => platform.toWire(m)) });
    }),
  );

  server.route(
    "PATCH",
    "/api/v1/chats/:chat/messages/:id",
    "edit",
    authed(async (c, bot) => {
      const m = ownMessage(c, bot);
      if (m instanceof Response) return m;
      const input = await body(c, qaEditBodySchema);
      if (input instanceof Response) return input;
      const bad = checkText(input.text);
      if (bad) return bad;
      const result = state.edit(m.id, input.text, input.metadata);
      if (result.status === "not_found")
        return fail(404, "message_not_found", "message to edit not found");
      return c.json({
        ok: true,
        message: platform.toWire(result.message),
        modified: result.status === "edited",
      });
    }),
  );

  server.route(
    "DELETE",
    "/api/v1/chats/:chat/messages/:id",
    "delete",
    authed((c, bot) => {
      const m = ownMessage(c, bot);
      if (m instanceof Response) return m;
      state.delete(m.id);
      return c.json({ ok: true });
    }),
  );

  server.route(
    "POST",
    "/api/v1/chats/:chat/typing",
    "typing",
    authed(async (c, bot) => {
      const chat = c.req.param("chat") ?? "";
      if (!platform.chat(chat)) return fail(404, "chat_not_found", `chat ${chat} not found`);
      const input = await body(c, qaTypingBodySchema);
      if (input instanceof Response) return input;
      state.typing(chat, bot.id, input.typing, input.thread_id);
      return c.json({ ok: true });
    }),
  );

  // The event stream is not a faultable call: refused connections still apply to it.
  server.app.get(
    "/api/v1/events",
    authed((c) => {
      const since = Number(c.req.query("since") ?? c.req.header("last-event-id") ?? 0);
      if (!Number.isSafeInteger(since) || since < 0) {
        return fail(400, "bad_request", "since must be a non-negative integer");
      }
      return streamSSE(c, async (stream) => {
        let cursor = since;
        let dirty = true;
        let wake: (() => void) | undefined;
        let open = true;
        const off = platform.onEvent(() => {
          dirty = true;
          wake?.();
        });
        stream.onAbort(() => {
          open = false;
          wake?.();
        });
        try {
          while (open) {
            if (!dirty) {
              const woke = await new Promise<boolean>((resolve) => {
                const timer = setTimeout(() => resolve(false), HEARTBEAT_MS);
                wake = () => {
                  clearTimeout(timer);
                  resolve(true);
                };
              });
              wake = undefined;
              if (!woke && open) await stream.write(": ping\n\n");
              continue;
            }
            dirty = false;
            for (const event of platform.eventsAfter(cursor)) {
              await stream.writeSSE(sse(event));
              cursor = event.seq;
            }
          }
        } finally {
          off();
        }
      });
    }),
  );
}

function sse(event: QaWireEvent) {
  return { id: String(event.seq), event: event.type, data: JSON.stringify(event) };
}
