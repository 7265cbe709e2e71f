/**
 * The adapter: capabilities, render, send / edit / delete, the reconciler and typing. Exactly
 * once: every send carries a client key the API deduplicates for 24 h.
 *
 * @module
 */
import * as herald from "@herald/plugin-sdk/channel-message";
import { HTTPCHAT, httpChatClient } from "./client.ts";
import type { HttpChatConfig } from "./index.ts";
import { createReceive, decodeOrigin } from "./receive.ts";

/** The API's client key for a platform call: ≤ 32 characters `[0-9A-Za-z]`, via `platformKey`. */
export const keyOf = (unitKey: string) => herald.platformKey(unitKey, { maxLength: 32 });

type Ctx = herald.MessageSendContext;
type Sent = { message: { id: string } };
type Found = { messages: { id: string }[] };

/**
 * Builds the adapter (no I/O: CLI commands use it too) from an account config, its token and
 * the bot's own user id (its echoes are dropped).
 */
export function createHttpChatAdapter(c: HttpChatConfig, token: string, botId?: string) {
  const call = httpChatClient(c, token);
  const at = (ctx: Ctx, path = "messages") => `/v1/chats/${ctx.message.target.id}/${path}`;
  const typing = (on: boolean) => async (ctx: Ctx) => {
    await call(`POST ${at(ctx, "typing")}`, { body: { on }, signal: ctx.signal });
  };
  return herald.defineChannelMessageAdapter({
    id: HTTPCHAT,
    capabilities: {
      text: { maxLength: c.maxLength, chunking: true },
      threads: { reply: true, nativeThread: true, inDirect: true },
      live: { edit: true, delete: true },
      delivery: {
        idempotencyKey: true, // the API keeps keys 24 h; a later replay is reconciled first
        idempotencyWindowMs: 23 * 3_600_000,
        requestTimeoutMs: c.requestTimeoutMs,
        reconcile: { notSent: "complete" }, // a lookup by key cannot miss a stored message
      },
    },
    render: { render: (message, ctx) => herald.plainTextBatch(message, ctx, c) },
    send: {
      async send(ctx, { index, kind, payload }) {
        const { target, origin } = ctx.message;
        const body = {
          text: payload,
          key: keyOf(ctx.unitIdempotencyKey),
          thread_id: target.threadId, // JSON leaves undefined fields out
          reply_to: herald.quotedReplyId(ctx, { index }),
          metadata: origin?.source === "herald" ? { herald_origin: origin } : undefined,
        };
        const sent = await call<Sent>(`POST ${at(ctx)}`, { body, signal: ctx.signal });
        return { platformMessageId: sent.message.id, kind, index };
      },
      async edit(ctx, part, { index, kind, payload }) {
        const path = at(ctx, `messages/${part.platformMessageId}`);
        await call(`PATCH ${path}`, { body: { text: payload }, signal: ctx.signal });
        return { ...part, kind, index }; // still names the original
      },
      // A message already gone answers 404 → `not_found`, which core counts as deleted.
      async delete(ctx, part) {
        await call(`DELETE ${at(ctx, `messages/${part.platformMessageId}`)}`, {
          signal: ctx.signal,
        });
      },
      classifyError: (error) => herald.classifyPlatformError(error, { rateLimitScope: "chat" }),
      reconcileUnknownSend: (ctx, units) =>
        herald.reconcileEachUnit(units, async ({ index, kind }) => {
          const key = keyOf(herald.unitIdempotencyKey(ctx.idempotencyKey, index));
          const { messages } = await call<Found>(`GET ${at(ctx)}`, { query: { key } });
          return messages[0] && { platformMessageId: messages[0].id, kind, index };
        }),
    },
    live: { typing: { refreshMs: 3_000, start: typing(true), stop: typing(false) } },
    origin: { decode: decodeOrigin },
    receive: createReceive(botId),
  });
}
