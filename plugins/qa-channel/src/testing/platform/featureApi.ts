/**
 * The QA platform's routes beyond text ([H23]), bot side (`/api/v1`, bearer token; faultable
 * ops `react`, `open`, `upload`, `send`, `read`) and human side (`/ui`, no auth, loopback only):
 *
 * - `PUT|DELETE /api/v1/chats/:chat/messages/:id/reactions/:emoji` — add / remove the bot's
 *   reaction; idempotent (a repeat answers `{ ok: true, changed: false }`);
 * - `POST /api/v1/dms` `{ user_id }` — open (or find) the DM chat `dm:<bot>:<user>`;
 * - `POST /api/v1/files?name=&mime_type=` (raw body) — upload, `413 file_too_large` over
 *   {@link QA_MAX_UPLOAD_BYTES}; `GET /api/v1/files/:id` — download (streamed);
 * - `POST /api/v1/chats/:chat/ephemeral` `{ user_id, text, buttons? }` — shown to one user only;
 * - `POST /ui/chats/:chat/messages/:id/reactions` `{ emoji, user_id, remove? }` — a person reacts;
 * - `POST /ui/chats/:chat/messages/:id/actions` `{ action_id, user_id }` — a person clicks;
 * - `POST /ui/chats/:chat/files?name=&mime_type=&user_id=&text=` (raw body) — a person sends a file;
 * - `GET /ui/files/:id` — the page's download link; `GET /ui/ephemeral?chat=&user=` — a user's
 *   ephemeral messages.
 *
 * @module
 */
import { z } from "@herald/plugin-sdk/channel-message";
import { QA_MAX_UPLOAD_BYTES, qaEphemeralBodySchema, qaOpenDmBodySchema } from "../../wire.ts";
import { apiKit, type QaContext } from "./apiKit.ts";
import type { QaPlatformCore } from "./platformTypes.ts";

/** Reads a raw request body, refusing more than `max` bytes. */
async function readCapped(c: QaContext, max: number): Promise<Uint8Array | "too_large"> {
  const declared = Number(c.req.header("content-length") ?? Number.NaN);
  if (declared > max) return "too_large";
  const body = c.req.raw.body;
  if (!body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > max) return "too_large";
    chunks.push(chunk);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

function download(file: { bytes: Uint8Array; mime_type: string; name: string }): Response {
  return new Response(file.bytes.slice(), {
    headers: {
      "content-type": file.mime_type,
      "content-length": String(file.bytes.byteLength),
      "content-disposition": `inline; filename="${file.name.replaceAll('"', "")}"`,
    },
  });
}

/** Registers the feature routes. */
export function registerFeatureApi(platform: QaPlatformCore): void {
  const { server, state, extras } = platform;
  const { fail, authed, body } = apiKit(platform);

  const reaction = (remove: boolean) =>
    authed((c, bot) => {
      const chat = c.req.param("chat") ?? "";
      const m = state.get(c.req.param("id") ?? "");
      if (!platform.chat(chat)) return fail(404, "chat_not_found", `chat ${chat} not found`);
      if (!m || m.deleted || m.chat !== chat)
        return fail(404, "message_not_found", "message to react to not found");
      const emoji = decodeURIComponent(c.req.param("emoji") ?? "");
      if (!emoji) return fail(400, "bad_request", "emoji is empty");
      const changed = platform.react({
        messageId: m.id,
        emoji,
        user: { id: bot.id, name: bot.name, bot: true },
        remove,
      });
      return c.json({ ok: true, changed });
    });
  server.route(
    "PUT",
    "/api/v1/chats/:chat/messages/:id/reactions/:emoji",
    "react",
    reaction(false),
  );
  server.route(
    "DELETE",
    "/api/v1/chats/:chat/messages/:id/reactions/:emoji",
    "react",
    reaction(true),
  );

  server.route(
    "POST",
    "/api/v1/dms",
    "open",
    authed(async (c, bot) => {
      const input = await body(c, qaOpenDmBodySchema);
      if (input instanceof Response) return input;
      if (input.user_id === bot.id) return fail(400, "bad_request", "a bot has no DM with itself");
      const chat = platform.createChat({
        id: `dm:${bot.id}:${input.user_id}`,
        type: "direct",
        title: `DM with ${input.user_id}`,
      });
      return c.json({ ok: true, chat });
    }),
  );

  server.route(
    "POST",
    "/api/v1/files",
    "upload",
    authed(async (c) => {
      const bytes = await readCapped(c, QA_MAX_UPLOAD_BYTES);
      if (bytes === "too_large")
        return fail(413, "file_too_large", `files are limited to ${QA_MAX_UPLOAD_BYTES} bytes`);
      const file = extras.addFile({
        name: c.req.query("name") || "file",
        mimeType: c.req.query("mime_type") || "application/octet-stream",
        bytes,
      });
      const { bytes: _, ...wire } = file;
      return c.json({ ok: true, file: wire });
    }),
  );

  server.route(
    "GET",
    "/api/v1/files/:id",
    "read",
    authed((c) => {
      const file = extras.file(c.req.param("id") ?? "");
      if (!file) return fail(404, "file_not_found", "file not found");
      return download(file);
    }),
  );

  server.route(
    "POST",
    "/api/v1/chats/:chat/ephemeral",
    "send",
    authed(async (c, bot) => {
      const chat = c.req.param("chat") ?? "";
      if (!platform.chat(chat)) return fail(404, "chat_not_found", `chat ${chat} not found`);
      const input = await body(c, qaEphemeralBodySchema);
      if (input instanceof Response) return input;
      const e = extras.addEphemeral(
        {
          chat,
          userId: input.user_id,
          authorId: bot.id,
          text: input.text,
          ...(input.buttons ? { buttons: input.buttons } : {}),
        },
        Date.now(),
      );
      return c.json({ ok: true, message_id: e.id });
    }),
  );

  // ── the human side ──────────────────────────────────────────────────────────
  const { app } = server;
  const badRequest = (description: string) =>
    Response.json({ ok: false, error: { code: "bad_request", description } }, { status: 400 });
  const notFound = (description: string) =>
    Response.json({ ok: false, error: { code: "not_found", description } }, { status: 404 });

  app.post("/ui/chats/:chat/messages/:id/reactions", async (c) => {
    const parsed = z
      .object({
        emoji: z.string().min(1).max(32),
        user_id: z.string().min(1).default("you"),
        remove: z.boolean().optional(),
      })
      .safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) return badRequest(z.prettifyError(parsed.error));
    try {
      const changed = platform.react({
        messageId: c.req.param("id"),
        emoji: parsed.data.emoji,
        user: { id: parsed.data.user_id, name: parsed.data.user_id },
        ...(parsed.data.remove ? { remove: true } : {}),
      });
      return c.json({ ok: true, changed });
    } catch (error) {
      return notFound((error as Error).message);
    }
  });

  app.post("/ui/chats/:chat/messages/:id/actions", async (c) => {
    const parsed = z
      .object({ action_id: z.string().min(1), user_id: z.string().min(1).default("you") })
      .safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) return badRequest(z.prettifyError(parsed.error));
    try {
      const event = platform.click({
        messageId: c.req.param("id"),
        actionId: parsed.data.action_id,
        user: { id: parsed.data.user_id, name: parsed.data.user_id },
      });
      return c.json({ ok: true, click_id: event.action?.id });
    } catch (error) {
      return notFound((error as Error).message);
    }
  });

  app.post("/ui/chats/:chat/files", async (c) => {
    const chat = c.req.param("chat");
    platform.createChat({ id: chat, type: "direct" });
    const bytes = await readCapped(c, QA_MAX_UPLOAD_BYTES);
    if (bytes === "too_large")
      return Response.json(
        { ok: false, error: { code: "file_too_large", description: "file too large" } },
        { status: 413 },
      );
    const file = extras.addFile({
      name: c.req.query("name") || "file",
      mimeType: c.req.query("mime_type") || "application/octet-stream",
      bytes,
    });
    const user = c.req.query("user_id") || "you";
    const message = platform.postWithExtras({ fileIds: [file.id] }, () =>
      platform.post({
        chat,
        text: c.req.query("text") ?? "",
        author: { id: user, name: user, bot: false },
      }),
    );
    return c.json({ ok: true, message: platform.toWire(message) });
  });

  app.get("/ui/files/:id", (c) => {
    const file = extras.file(c.req.param("id"));
    return file ? download(file) : notFound("file not found");
  });

  app.get("/ui/ephemeral", (c) => {
    const chat = c.req.query("chat") ?? platform.webChat;
    const user = c.req.query("user");
    return c.json({ ok: true, messages: extras.ephemerals(chat, user) });
  });
}
