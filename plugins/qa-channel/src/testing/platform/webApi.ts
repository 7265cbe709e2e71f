/**
 * The QA platform's human side and control API (no auth; the platform listens on 127.0.0.1
 * only):
 * - `GET /` — the web chat page (`?chat=<id>&user=<name>`);
 * - `GET /ui/events?chat=<id>` — server-sent events: a `snapshot` of the chat, then every change
 *   (`created`, `edited`, `deleted`, `typing`);
 * - `POST /ui/chats/:chat/messages` `{ text, user_id?, user_name?, thread_id? }` — a person posts
 *   (bots receive it on their event stream);
 * - `POST /control/faults` `{ fault, op?, times? }`, `POST /control/idempotency` `{ enabled }`,
 *   `POST /control/chats` `{ id?, type }`, `GET /control/messages?chat=` — for demos and tests
 *   running the platform in another process.
 *
 * @module
 */
import { z } from "@herald/plugin-sdk/channel-message";
import { streamSSE } from "@herald/plugin-sdk/testing";
import type { QaPlatformCore } from "./platformTypes.ts";
import { webChatPage } from "./webChatPage.ts";

const postSchema = z.object({
  text: z.string().min(1).max(10_000),
  user_id: z.string().min(1).max(100).default("you"),
  user_name: z.string().max(100).optional(),
  thread_id: z.string().optional(),
});

const faultSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("status"),
    status: z.number().int().min(200).max(599),
    code: z.string().optional(),
    description: z.string().optional(),
  }),
  z.object({
    kind: z.literal("rate_limit"),
    retryAfterMs: z.number().nonnegative(),
    via: z.enum(["header", "body", "both"]).optional(),
  }),
  z.object({ kind: z.literal("reset_before_accept") }),
  z.object({ kind: z.literal("reset_after_accept") }),
  z.object({ kind: z.literal("delay"), delayMs: z.number().nonnegative().max(600_000) }),
]);

const controlFaultSchema = z.object({
  fault: faultSchema,
  op: z.string().optional(),
  times: z.number().int().positive().max(1_000).optional(),
});

/** Registers the web page, the UI API and the control API. */
export function registerWebApi(platform: QaPlatformCore): void {
  const { app } = platform.server;
  const bad = (issues: z.ZodError) =>
    Response.json(
      { ok: false, error: { code: "bad_request", description: z.prettifyError(issues) } },
      { status: 400 },
    );

  app.get("/", (c) => c.html(webChatPage({ defaultChat: platform.webChat })));

  app.get("/ui/events", (c) => {
    const chat = c.req.query("chat") ?? platform.webChat;
    return streamSSE(c, async (stream) => {
      const queue: string[] = [];
      let wake: (() => void) | undefined;
      let open = true;
      const off = platform.state.subscribe((change) => {
        const changeChat = change.type === "typing" ? change.chat : change.message.chat;
        if (changeChat !== chat) return;
        queue.push(
          JSON.stringify(
            change.type === "typing"
              ? { type: "typing", user_id: change.userId, on: change.on, thread_id: change.thread }
              : { type: change.type, message: platform.toWire(change.message) },
          ),
        );
        wake?.();
      });
      // Reactions and ephemeral messages ([H23]) are not in the visible state's changes.
      const offExtras = platform.extras.subscribe((change) => {
        if (change.type === "reactions") {
          const m = platform.state.get(change.messageId);
          if (change.chat !== chat || !m) return;
          queue.push(JSON.stringify({ type: "reactions", message: platform.toWire(m) }));
        } else {
          if (change.ephemeral.chat !== chat) return;
          queue.push(JSON.stringify({ type: "ephemeral", ephemeral: change.ephemeral }));
        }
        wake?.();
      });
      stream.onAbort(() => {
        open = false;
        wake?.();
      });
      try {
        const messages = platform.state.messages({ chat }).map((m) => platform.toWire(m));
        // Ephemeral messages go along; the page shows only its own user's.
        const ephemerals = platform.extras.ephemerals(chat);
        await stream.writeSSE({
          event: "snapshot",
          data: JSON.stringify({ chat, messages, ephemerals }),
        });
        while (open) {
          const next = queue.shift();
          if (next !== undefined) {
            await stream.writeSSE({ event: "change", data: next });
            continue;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
        }
      } finally {
        off();
        offExtras();
      }
    });
  });

  app.post("/ui/chats/:chat/messages", async (c) => {
    const parsed = postSchema.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) return bad(parsed.error);
    const chat = c.req.param("chat");
    platform.createChat({ id: chat, type: "direct" });
    const input = parsed.data;
    if (input.thread_id !== undefined && !platform.threadExists(chat, input.thread_id)) {
      return c.json(
        { ok: false, error: { code: "thread_not_found", description: "no such thread" } },
        404,
      );
    }
    const message = platform.post({
      chat,
      text: input.text,
      author: { id: input.user_id, name: input.user_name ?? input.user_id, bot: false },
      ...(input.thread_id !== undefined ? { thread: input.thread_id } : {}),
    });
    return c.json({ ok: true, message: platform.toWire(message) });
  });

  app.post("/control/faults", async (c) => {
    const parsed = controlFaultSchema.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) return bad(parsed.error);
    const { fault, op, times } = parsed.data;
    platform.faults.failNext(fault, { ...(op ? { op } : {}), ...(times ? { times } : {}) });
    return c.json({ ok: true, pending: platform.faults.pending });
  });

  app.post("/control/idempotency", async (c) => {
    const parsed = z
      .object({ enabled: z.boolean() })
      .safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) return bad(parsed.error);
    platform.state.idempotentKeys = parsed.data.enabled;
    return c.json({ ok: true, enabled: parsed.data.enabled });
  });

  app.post("/control/chats", async (c) => {
    const parsed = z
      .object({ id: z.string().min(1).optional(), type: z.enum(["direct", "group"]) })
      .safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) return bad(parsed.error);
    const { id, type } = parsed.data;
    return c.json({ ok: true, chat: platform.createChat({ type, ...(id ? { id } : {}) }) });
  });

  app.get("/control/messages", (c) => {
    const chat = c.req.query("chat");
    const messages = platform.state.messages({
      includeDeleted: true,
      ...(chat ? { chat } : {}),
    });
    return c.json({ ok: true, messages: messages.map((m) => platform.toWire(m)) });
  });
}
