/**
 * `@herald/example-plugin-httpchat`: a herald channel plugin for the minimal HTTP chat API of
 * this package's README, written from `docs/plugin-authoring.md` ("The adapter contract"):
 * the config, the adapter (capabilities, render, send / edit / delete, the reconciler) and the
 * plugin. Exactly once: every send carries a client key the API deduplicates for 24 h.
 *
 * @packageDocumentation
 */
// The SDK as one namespace (as VS Code extensions import `vscode`): every call site shows what
// comes from herald, and the import list does not grow with each helper.
import * as herald from "@herald/plugin-sdk/channel-message";
import { HTTPCHAT, httpChatClient } from "./client.ts";
import { createHttpChatReceiver, createReceive, decodeOrigin } from "./receive.ts";

export * from "./client.ts";
export { createHttpChatReceiver, decodeOrigin } from "./receive.ts";

/** The API's longest message text, in UTF-16 units. */
export const HTTPCHAT_MAX_TEXT = 2_000;

/** Account config; `tokenEnv` / `webhookSecretEnv` name the env vars holding the secrets. */
export const httpChatConfigSchema = herald.z.strictObject({
  baseUrl: herald.z.url(),
  tokenEnv: herald.z.string().min(1),
  webhookSecretEnv: herald.z.string().min(1),
  /** Longest part, in UTF-16 units. @defaultValue the API's limit, {@link HTTPCHAT_MAX_TEXT} */
  maxLength: herald.z.number().int().min(16).max(HTTPCHAT_MAX_TEXT).default(HTTPCHAT_MAX_TEXT),
  /** Per call, in ms. @defaultValue 10_000 */
  requestTimeoutMs: herald.z.number().int().positive().default(10_000),
});
/** A validated account config. */
export type HttpChatConfig = herald.z.infer<typeof httpChatConfigSchema>;

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
  // `/v1/chats/:chat/messages`, or `…/messages/:id` of a sent part, in the message's chat.
  const at = (ctx: Ctx, part?: herald.MessageReceiptPart) =>
    `/v1/chats/${ctx.message.target.id}/messages${part ? `/${part.platformMessageId}` : ""}`;
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
      async edit(ctx, part, { index, kind, payload: text }) {
        await call(`PATCH ${at(ctx, part)}`, { body: { text }, signal: ctx.signal });
        return { ...part, kind, index }; // still names the original
      },
      // A message already gone answers 404 → `not_found`, which core counts as deleted.
      async delete(ctx, part) {
        await call(`DELETE ${at(ctx, part)}`, { signal: ctx.signal });
      },
      classifyError: (error) => herald.classifyPlatformError(error, { rateLimitScope: "chat" }),
      reconcileUnknownSend: (ctx, units) =>
        herald.reconcileEachUnit(units, async ({ index, kind }) => {
          const key = keyOf(herald.unitIdempotencyKey(ctx.idempotencyKey, index));
          const { messages } = await call<Found>(`GET ${at(ctx)}`, { query: { key } });
          return messages[0] && { platformMessageId: messages[0].id, kind, index };
        }),
    },
    origin: { decode: decodeOrigin },
    receive: createReceive(botId),
  });
}

/** The plugin: `createAccount` asks `GET /v1/me` who the bot is; a rejected token stops it. */
export default herald.defineChannelPlugin<HttpChatConfig>({
  id: HTTPCHAT,
  configSchema: httpChatConfigSchema,
  createAdapter: (c, deps) => createHttpChatAdapter(c, deps.secret(c.tokenEnv)),
  async createAccount(c, deps) {
    const token = deps.secret(c.tokenEnv);
    const me = await herald.verifyCredentials(
      () => httpChatClient(c, token)<{ id: string; name: string }>("GET /v1/me"),
      { channel: HTTPCHAT, accountId: deps.accountId, fix: `check ${c.tokenEnv}` },
    );
    return {
      adapter: createHttpChatAdapter(c, token, me.id),
      receiver: createHttpChatReceiver(deps.secret(c.webhookSecretEnv), deps.sink),
      identity: { id: me.id, name: me.name },
      close: async () => {},
    };
  },
});
