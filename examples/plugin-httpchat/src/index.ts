/**
 * `@herald/example-plugin-httpchat`: a herald channel plugin for the minimal HTTP chat API of
 * this package's README, written from `docs/plugin-authoring.md` ("The adapter contract").
 * Exactly once: every send carries a client key the API deduplicates.
 *
 * @packageDocumentation
 */
import {
  ChannelAccountError,
  type ChannelMessageAdapter,
  chunkText,
  defineChannelMessageAdapter,
  defineChannelPlugin,
  type MessageReceiptPart,
  type MessageSendContext,
  platformKey,
  type RenderedMessageUnit,
  unitIdempotencyKey,
  z,
} from "@herald/plugin-sdk/channel-message";
import { classifyError, HttpChatApiError, httpChatClient, type WireMessage } from "./client.ts";
import { createHttpChatReceiver, createReceive, decodeOrigin } from "./receive.ts";

export * from "./client.ts";
export { createHttpChatReceiver } from "./receive.ts";

/** The channel id. */
export const HTTPCHAT = "httpchat";
/** The API's longest message text, in UTF-16 units. */
export const HTTPCHAT_MAX_TEXT = 2_000;

/** Account config; `tokenEnv` / `webhookSecretEnv` name the env vars holding the secrets. */
export const httpChatConfigSchema = z.strictObject({
  baseUrl: z.url(),
  tokenEnv: z.string().min(1),
  webhookSecretEnv: z.string().min(1),
  maxLength: z.number().int().min(16).max(HTTPCHAT_MAX_TEXT).default(HTTPCHAT_MAX_TEXT),
  requestTimeoutMs: z.number().int().positive().default(10_000),
});
/** A validated account config. */
export type HttpChatConfig = z.infer<typeof httpChatConfigSchema>;

/** What the adapter needs: the account config, its token, the bot's own id (echo drops). */
export type HttpChatAdapterOptions = Pick<HttpChatConfig, "baseUrl" | "maxLength"> &
  Partial<Pick<HttpChatConfig, "requestTimeoutMs">> & { token: string; botId?: string };

/** The API's client key for a platform call: ≤ 32 characters `[0-9A-Za-z]`, via `platformKey`. */
export const keyOf = (unitKey: string) => platformKey(unitKey, { maxLength: 32 });

/** Builds the adapter (no I/O: CLI commands use it too). */
export function createHttpChatAdapter(o: HttpChatAdapterOptions): ChannelMessageAdapter {
  const call = httpChatClient(o.baseUrl, o.token, o.requestTimeoutMs ?? 10_000);
  const chat = (ctx: MessageSendContext) => `/v1/chats/${ctx.message.target.id}`;
  const partOf = (m: WireMessage, unit: RenderedMessageUnit): MessageReceiptPart => {
    const thread = m.thread_id !== undefined ? { threadId: m.thread_id } : {};
    return { platformMessageId: m.id, kind: unit.kind, index: unit.index, ...thread };
  };
  const typing = (on: boolean) => (ctx: MessageSendContext) =>
    call(`POST ${chat(ctx)}/typing`, { body: { on }, signal: ctx.signal }).then(() => {});
  return defineChannelMessageAdapter({
    id: HTTPCHAT,
    capabilities: {
      text: { maxLength: o.maxLength, chunking: true },
      threads: { reply: true, nativeThread: true, inDirect: true },
      live: { edit: true, delete: true },
      delivery: {
        idempotencyKey: true, // the API keeps keys 24 h; a later replay is reconciled first
        idempotencyWindowMs: 23 * 3_600_000,
        requestTimeoutMs: o.requestTimeoutMs ?? 10_000,
        reconcile: { notSent: "complete" }, // a lookup by key cannot miss a stored message
        retryAfter: true,
        receiptRequired: true,
      },
    },
    render: {
      render: (message, ctx) => ({
        idempotencyKey: ctx.idempotencyKey,
        atomicity: "all_or_retry_remaining",
        units: chunkText(message.body?.markdown ?? "", { maxLength: o.maxLength }).map(
          (c, index) => ({ index, kind: "text", payload: c.text, required: true }),
        ),
      }),
    },
    send: {
      async send(ctx, unit) {
        const { target, relation, origin } = ctx.message;
        const reply = relation?.kind === "reply" ? relation : undefined; // quote: the default
        const quote = unit.index === 0 && reply && (reply.placement ?? "quote") === "quote";
        const body = {
          text: unit.payload,
          key: keyOf(ctx.unitIdempotencyKey),
          ...(target.threadId ? { thread_id: target.threadId } : {}),
          ...(quote ? { reply_to: reply.replyToId } : {}),
          ...(origin?.source === "herald" ? { metadata: { herald_origin: origin } } : {}),
        };
        const { message } = await call<{ message: WireMessage }>(`POST ${chat(ctx)}/messages`, {
          body,
          signal: ctx.signal,
        });
        return partOf(message, unit);
      },
      async edit(ctx, target, unit) {
        const path = `${chat(ctx)}/messages/${target.platformMessageId}`;
        await call(`PATCH ${path}`, { body: { text: unit.payload }, signal: ctx.signal });
        return { ...target, kind: unit.kind, index: unit.index }; // still names the original
      },
      async delete(ctx, target) {
        // A message already gone answers 404 → `not_found`, which core counts as deleted.
        const path = `${chat(ctx)}/messages/${target.platformMessageId}`;
        await call(`DELETE ${path}`, { signal: ctx.signal });
      },
      classifyError,
      async reconcileUnknownSend(ctx, units) {
        const parts: MessageReceiptPart[] = [];
        for (const unit of units) {
          const path = `${chat(ctx)}/messages?key=${keyOf(unitIdempotencyKey(ctx.idempotencyKey, unit.index))}`;
          const { messages } = await call<{ messages: WireMessage[] }>(`GET ${path}`);
          if (messages[0]) parts.push(partOf(messages[0], unit));
        }
        return parts.length > 0 ? { status: "sent", parts } : { status: "not_sent" };
      },
    },
    live: { typing: { refreshMs: 3_000, start: typing(true), stop: typing(false) } },
    origin: { decode: decodeOrigin },
    receive: createReceive(HTTPCHAT, o.botId),
  });
}

/** The plugin: `createAccount` asks `GET /v1/me` who the bot is; a rejected token stops it. */
export default defineChannelPlugin<HttpChatConfig>({
  id: HTTPCHAT,
  configSchema: httpChatConfigSchema,
  createAdapter: (c, deps) => createHttpChatAdapter({ ...c, token: deps.secret(c.tokenEnv) }),
  async createAccount(c, deps) {
    const token = deps.secret(c.tokenEnv);
    const call = httpChatClient(c.baseUrl, token, c.requestTimeoutMs);
    const me = await call<{ id: string; name: string }>("GET /v1/me", {
      signal: deps.signal,
    }).catch((e: unknown) => {
      if (!(e instanceof HttpChatApiError && e.status === 401)) throw e;
      throw new ChannelAccountError(
        HTTPCHAT,
        deps.accountId,
        "token rejected (401)",
        `check ${c.tokenEnv}`,
      );
    });
    return {
      adapter: createHttpChatAdapter({ ...c, token, botId: me.id }),
      receiver: createHttpChatReceiver(deps.secret(c.webhookSecretEnv), deps.sink),
      identity: { id: me.id, name: me.name },
      close: async () => {},
    };
  },
});
