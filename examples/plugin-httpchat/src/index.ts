/**
 * `@herald/example-plugin-httpchat`: a herald channel plugin for the minimal HTTP chat API in
 * this package's README, written from `docs/plugin-authoring.md` ("The adapter contract").
 * Exactly once: every send carries a client key the API deduplicates.
 *
 * @packageDocumentation
 */
import {
  ackToResponse,
  ChannelAccountError,
  type ChannelMessageAdapter,
  type ChannelReceiver,
  type ChannelReceiverSink,
  chunkText,
  defineChannelMessageAdapter,
  defineChannelPlugin,
  ignore,
  type MessageOrigin,
  type MessageReceiptPart,
  type MessageSendContext,
  parseInbound,
  platformKey,
  type RenderedMessageUnit,
  verifyHmacSha256,
  z,
} from "@herald/plugin-sdk/channel-message";
import {
  classifyError,
  HttpChatApiError,
  type HttpChatCall,
  httpChatClient,
  type WireMessage,
} from "./client.ts";

export {
  classifyError,
  HttpChatApiError,
  HttpChatNetworkError,
  type WireMessage,
} from "./client.ts";

/** The channel id. */
export const HTTPCHAT = "httpchat";
/** The API's longest message text, in UTF-16 units. */
export const HTTPCHAT_MAX_TEXT = 2_000;

/** Account config: where the API is and which secrets (env var names) hold the credentials. */
export const httpChatConfigSchema = z.object({
  baseUrl: z.url(),
  tokenEnv: z.string().min(1),
  webhookSecretEnv: z.string().min(1),
  maxLength: z.number().int().min(16).max(HTTPCHAT_MAX_TEXT).default(HTTPCHAT_MAX_TEXT),
  requestTimeoutMs: z.number().int().positive().default(10_000),
});
/** A validated account config. */
export type HttpChatConfig = z.infer<typeof httpChatConfigSchema>;

/** What the adapter needs: the API, the token, the bot's own id (for echo drops), the text limit. */
export type HttpChatAdapterOptions = {
  baseUrl: string;
  token: string;
  botId?: string;
  maxLength: number;
  requestTimeoutMs?: number;
};

const eventSchema = z.object({
  type: z.string(),
  message: z.object({
    id: z.string(),
    chat_id: z.string(),
    chat_type: z.enum(["direct", "group"]),
    thread_id: z.string().optional(),
    reply_to: z.string().optional(),
    text: z.string(),
    author: z.object({ id: z.string(), name: z.string().optional(), bot: z.boolean() }),
    metadata: z.record(z.string(), z.unknown()).optional(),
    created_at: z.number(),
  }),
});

/** The API's key for a unit: `platformKey` fits herald's key into the API's 32 characters `[0-9A-Za-z]`. */
export const keyOf = (unitKey: string) => platformKey(unitKey, { maxLength: 32 });

/** Builds the adapter (no I/O: CLI commands use it too). */
export function createHttpChatAdapter(o: HttpChatAdapterOptions): ChannelMessageAdapter {
  const call: HttpChatCall = httpChatClient(o.baseUrl, o.token, o.requestTimeoutMs ?? 10_000);
  const chat = (ctx: MessageSendContext) =>
    `/v1/chats/${encodeURIComponent(ctx.message.target.id)}`;
  const partOf = (m: WireMessage, unit: RenderedMessageUnit): MessageReceiptPart => ({
    platformMessageId: m.id,
    kind: unit.kind,
    index: unit.index,
    ...(m.thread_id !== undefined ? { threadId: m.thread_id } : {}),
  });
  return defineChannelMessageAdapter({
    id: HTTPCHAT,
    capabilities: {
      text: { maxLength: o.maxLength, chunking: true },
      threads: { reply: true, nativeThread: true, inDirect: true },
      live: { edit: true, delete: true },
      delivery: { idempotencyKey: true, retryAfter: true, receiptRequired: true },
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
        const quote =
          unit.index === 0 &&
          relation?.kind === "reply" &&
          (relation.placement ?? "quote") === "quote";
        const { message } = await call<{ message: WireMessage }>(
          "POST",
          `${chat(ctx)}/messages`,
          {
            text: unit.payload,
            key: keyOf(ctx.unitIdempotencyKey),
            ...(target.threadId ? { thread_id: target.threadId } : {}),
            ...(quote ? { reply_to: relation.replyToId } : {}),
            ...(origin?.source === "herald" ? { metadata: { herald_origin: origin } } : {}),
          },
          ctx.signal,
        );
        return partOf(message, unit);
      },
      async edit(ctx, target, unit) {
        await call(
          "PATCH",
          `${chat(ctx)}/messages/${target.platformMessageId}`,
          { text: unit.payload },
          ctx.signal,
        );
        return { ...target, kind: unit.kind, index: unit.index }; // still names the original message
      },
      async delete(ctx, target) {
        await call(
          "DELETE",
          `${chat(ctx)}/messages/${target.platformMessageId}`,
          undefined,
          ctx.signal,
        ).catch((e: unknown) => {
          if (!(e instanceof HttpChatApiError && e.status === 404)) throw e; // already gone: done
        });
      },
      classifyError,
      async reconcileUnknownSend(ctx, units) {
        const parts: MessageReceiptPart[] = [];
        for (const unit of units) {
          const q = `?key=${keyOf(`${ctx.idempotencyKey}#${unit.index}`)}`;
          const { messages } = await call<{ messages: WireMessage[] }>(
            "GET",
            `${chat(ctx)}/messages${q}`,
            undefined,
            ctx.signal,
          );
          if (messages[0]) parts.push(partOf(messages[0], unit));
        }
        return parts.length > 0 ? { status: "sent", parts } : { status: "not_sent" };
      },
    },
    live: {
      typing: {
        refreshMs: 3_000,
        start: (ctx) => call("POST", `${chat(ctx)}/typing`, { on: true }, ctx.signal),
        stop: (ctx) => call("POST", `${chat(ctx)}/typing`, { on: false }, ctx.signal),
      },
    },
    origin: {
      decode: (raw) => {
        const origin = (raw as { message?: WireMessage }).message?.metadata?.herald_origin as
          | MessageOrigin
          | undefined;
        return origin?.source === "herald" ? origin : undefined;
      },
    },
    receive: {
      normalize(raw, ctx) {
        const event = parseInbound(eventSchema, raw, HTTPCHAT);
        if (event.type !== "message.created") return ignore("unsupported_event", event.type);
        const m = event.message;
        return {
          id: `${HTTPCHAT}:${m.id}`,
          channel: HTTPCHAT,
          direction: "inbound",
          target: {
            kind: m.chat_type === "direct" ? "direct" : m.thread_id ? "thread" : "group",
            id: m.chat_id,
            ...(m.thread_id ? { threadId: m.thread_id } : {}),
          },
          sender: {
            id: m.author.id,
            isBot: m.author.bot,
            ...(m.author.name ? { displayName: m.author.name } : {}),
          },
          body: { markdown: m.text },
          platformMessageId: m.id,
          threadAnchor: { threadId: m.thread_id ?? m.id },
          timestamp: m.created_at,
          ...(m.reply_to ? { relation: { kind: "reply", replyToId: m.reply_to } } : {}),
          ...(ctx.accountId !== undefined ? { accountId: ctx.accountId } : {}),
          raw,
        };
      },
      selfIds: () => (o.botId ? [o.botId] : []),
    },
  });
}

/** The webhook receiver: checks `X-HttpChat-Signature` (HMAC-SHA256 of the raw body), then hands the event over. */
export function createHttpChatReceiver(
  webhookSecret: string,
  sink: ChannelReceiverSink,
): ChannelReceiver {
  return {
    async webhook(request) {
      const raw = new Uint8Array(await request.arrayBuffer());
      const signature = request.headers.get("x-httpchat-signature");
      if (!verifyHmacSha256({ secret: webhookSecret, signed: [raw], signature, prefix: "sha256=" }))
        return new Response("bad signature", { status: 401 });
      let event: unknown;
      try {
        event = JSON.parse(new TextDecoder().decode(raw));
      } catch {
        return new Response("body is not JSON", { status: 400 });
      }
      return ackToResponse(await sink.receive(event).ack);
    },
  };
}

/** The plugin: `createAccount` asks `GET /v1/me` who the bot is; a rejected token stops the account. */
export default defineChannelPlugin<HttpChatConfig>({
  id: HTTPCHAT,
  configSchema: httpChatConfigSchema,
  createAdapter: (c, deps) => createHttpChatAdapter({ ...c, token: deps.secret(c.tokenEnv) }),
  async createAccount(c, deps) {
    const token = deps.secret(c.tokenEnv);
    const me = await httpChatClient(c.baseUrl, token, c.requestTimeoutMs)<{
      id: string;
      name: string;
    }>("GET", "/v1/me", undefined, deps.signal).catch((e: unknown) => {
      if (e instanceof HttpChatApiError && e.status === 401)
        throw new ChannelAccountError(
          HTTPCHAT,
          deps.accountId,
          "the token was rejected (401)",
          `check ${c.tokenEnv}`,
        );
      throw e;
    });
    return {
      adapter: createHttpChatAdapter({ ...c, token, botId: me.id }),
      receiver: createHttpChatReceiver(deps.secret(c.webhookSecretEnv), deps.sink),
      identity: { id: me.id, name: me.name },
      close: async () => {},
    };
  },
});
