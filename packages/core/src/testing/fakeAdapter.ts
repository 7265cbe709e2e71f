/**
 * A channel adapter for the {@link FakePlatform}, in process or over HTTP
 * ({@link serveFakePlatform} / {@link httpTransport}). It classifies errors the way real
 * adapters must: refused → `not_dispatched`; reset / 5xx → `maybe_sent`; 429 → `rate_limit`
 * with `retryAfterMs` converted from seconds, and the platform's rate-limit headers reported through
 * `ctx.reportRateLimit` (answers and errors alike). With `live` options it also declares an edit rate,
 * a typing indicator and a native stream (over the fake platform's `typing` / `stream_*` calls).
 *
 * @module
 */
import {
  type LivePreviewPolicy,
  type MessageLiveAdapter,
  unshownStreamText,
} from "../adapter/live.ts";
import type {
  ChannelMessageAdapter,
  ClassifiedFailure,
  MessageSendContext,
} from "../adapter/types.ts";
import type { RenderedMessageUnit } from "../message/batch.ts";
import type { MessageCapabilities } from "../message/capabilities.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { MessageReceiptPart } from "../message/receipt.ts";
import {
  type FakePlatform,
  FakePlatformError,
  type PlatformAnswer,
  type PlatformCall,
} from "./fakePlatform.ts";

/** How the adapter reaches the platform. */
export type FakeTransport = (call: PlatformCall) => Promise<PlatformAnswer>;

/** Calls the platform object directly (async, like a network call). */
export function inProcessTransport(platform: FakePlatform): FakeTransport {
  return async (call) => {
    await Promise.resolve();
    return platform.call(call);
  };
}

/** Options of {@link createFakeAdapter}. */
export type FakeAdapterOptions = {
  /** @defaultValue "qa" */
  id?: string;
  transport: FakeTransport;
  /** Declare native idempotency (replays with the same key are deduplicated by the platform). */
  idempotent?: boolean;
  /**
   * Provide `reconcileUnknownSend` (looks messages up by unit key). Its `not_sent` is declared
   * `complete` (a direct lookup by key) unless `"best_effort"` is given.
   */
  reconcile?: boolean | "best_effort";
  /** `capabilities.delivery.idempotencyWindowMs` (absent: keys never expire). */
  idempotencyWindowMs?: number;
  /**
   * `capabilities.delivery.requestTimeoutMs`: the settle delay before a lookup. The fake's own
   * transports have no timeout; this is what the adapter declares. @defaultValue 1_000
   */
  requestTimeoutMs?: number;
  /** `capabilities.delivery.reconcile.visibilityLagMs`. @defaultValue 0 */
  visibilityLagMs?: number;
  unknownSendPolicy?: "hold" | "at_least_once";
  /** Text chunk limit in UTF-16 units. @defaultValue 4096 */
  maxLength?: number;
  rateLimits?: MessageCapabilities["rateLimits"];
  /**
   * The scope a 429 pauses (`ClassifiedFailure.rateLimitScope`); `"route"` leaves it unset, so
   * core's default (the route that was hit) applies. @defaultValue "chat"
   */
  rateLimitScope?: "account" | "chat" | "route";
  /** Choose route keys like an HTTP platform: `POST /chats/:chat/messages`, `PATCH /chats/:chat/messages`, … */
  routes?: boolean;
  /**
   * Declare that an edit answered `not_found` may be replaced by a fresh send.
   * @defaultValue true
   */
  freshSendOnEditNotFound?: boolean;
  /**
   * Declare `capabilities.threads.reply` (sends honour `target.threadId` either way); with
   * `{ inDirect: true }` also `threads.inDirect`.
   */
  threads?: boolean | { inDirect: boolean };
  /** Live capabilities: edit rate, typing indicator, native stream, preview policy. */
  live?: {
    /** `capabilities.live.editRate`: edits per chat, e.g. `{ limit: 1, intervalMs: 1_000 }`. */
    editRate?: { limit: number; intervalMs: number };
    /** Provide a typing indicator repeated every `refreshMs` (default 4_000). */
    typing?: boolean | { refreshMs: number };
    /**
     * Provide a native stream (the platform's `stream_begin` / `stream_append` /
     * `stream_finish`). `stop: "append"` makes it a platform whose stop call appends its text
     * (Slack): `finish` then sends only what is not shown yet, or replaces the text by an edit
     * when that is uncertain. `supports` limits it to some messages.
     * @defaultValue stop `"replace"`, every message supported
     */
    stream?:
      | boolean
      | { stop?: "replace" | "append"; supports?: (message: ChannelMessage) => boolean };
    /** Declare `capabilities.live.edit`. @defaultValue true */
    edit?: boolean;
    onCancel?: LivePreviewPolicy;
    onRecover?: LivePreviewPolicy;
    staleAfterMs?: number;
  };
};

/** Splits text into chunks of at most `max` UTF-16 units without splitting a surrogate pair. */
function chunk(text: string, max: number): string[] {
  const out: string[] = [];
  let current = "";
  for (const ch of text) {
    if (current.length + ch.length > max) {
      out.push(current);
      current = "";
    }
    current += ch;
  }
  if (current || out.length === 0) out.push(current);
  return out;
}

function classifyFake(error: unknown, scope: "account" | "chat" | "route"): ClassifiedFailure {
  if (!(error instanceof FakePlatformError)) {
    return { kind: "unknown", evidence: "maybe_sent", message: String(error) };
  }
  const base = { message: error.message, ...(error.code ? { platformCode: error.code } : {}) };
  if (error.status === 0) {
    return {
      ...base,
      kind: "transient",
      evidence: error.dispatched ? "maybe_sent" : "not_dispatched",
    };
  }
  if (error.status === 429) {
    return {
      ...base,
      kind: "rate_limit",
      evidence: "not_dispatched",
      ...(scope !== "route" ? { rateLimitScope: scope } : {}),
      ...(error.retryAfterS !== undefined ? { retryAfterMs: error.retryAfterS * 1000 } : {}),
    };
  }
  if (error.status >= 500) return { ...base, kind: "transient", evidence: "maybe_sent" };
  const kinds: Record<number, ClassifiedFailure["kind"]> = {
    400: "invalid_payload",
    401: "auth",
    403: "permission",
    404: "not_found",
    409: "conflict",
  };
  return { ...base, kind: kinds[error.status] ?? "unknown", evidence: "not_dispatched" };
}

const METHOD: Record<string, string> = {
  send: "POST",
  edit: "PATCH",
  delete: "DELETE",
  stream_begin: "POST",
  stream_append: "PUT",
  stream_finish: "PUT",
};

/** Reports the platform's rate-limit headers of an answer or error to the scheduler. */
function reporting(
  transport: FakeTransport,
): (ctx: MessageSendContext, call: PlatformCall) => Promise<PlatformAnswer> {
  return async (ctx, call) => {
    try {
      const answer = await transport(call);
      if (answer.rateLimit) ctx.reportRateLimit?.(answer.rateLimit);
      return answer;
    } catch (error) {
      if (error instanceof FakePlatformError && error.rateLimit) {
        ctx.reportRateLimit?.(error.rateLimit);
      }
      throw error;
    }
  };
}

/** A channel adapter over a fake platform. */
export function createFakeAdapter(options: FakeAdapterOptions): ChannelMessageAdapter {
  const max = options.maxLength ?? 4096;
  const call = reporting(options.transport);
  const scope = options.rateLimitScope ?? "chat";
  const textOf = (unit: RenderedMessageUnit) => (unit.payload as { text: string }).text;
  const part = (id: string | undefined, unit: RenderedMessageUnit): MessageReceiptPart => ({
    platformMessageId: id ?? "",
    kind: unit.kind,
    index: unit.index,
  });
  const liveOptions = options.live ?? {};
  return {
    id: options.id ?? "qa",
    capabilities: {
      text: { maxLength: max, chunking: true },
      live: {
        edit: liveOptions.edit ?? true,
        delete: true,
        progress: true,
        nativeStream: liveOptions.stream === true,
        ...(liveOptions.editRate ? { editRate: liveOptions.editRate } : {}),
      },
      delivery: {
        idempotencyKey: options.idempotent ?? false,
        ...(options.idempotencyWindowMs !== undefined
          ? { idempotencyWindowMs: options.idempotencyWindowMs }
          : {}),
        requestTimeoutMs: options.requestTimeoutMs ?? 1_000,
        ...(options.reconcile
          ? {
              reconcile: {
                notSent: options.reconcile === "best_effort" ? "best_effort" : "complete",
                ...(options.visibilityLagMs !== undefined
                  ? { visibilityLagMs: options.visibilityLagMs }
                  : {}),
              },
            }
          : {}),
        retryAfter: true,
        unknownSendPolicy: options.unknownSendPolicy ?? "hold",
        freshSendOnEditNotFound: options.freshSendOnEditNotFound ?? true,
      },
      ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
      ...(options.threads
        ? {
            threads: {
              reply: true,
              inDirect: typeof options.threads === "object" && options.threads.inDirect,
            },
          }
        : {}),
    },
    render: {
      render(message, ctx) {
        const media = (message.attachments ?? []).map(
          (a) => `[${a.kind} ${a.url ?? a.path ?? ""}]${a.caption ? ` ${a.caption}` : ""}`,
        );
        const body = message.body?.markdown ?? "";
        const texts = [...media, ...(body || media.length === 0 ? chunk(body, max) : [])];
        return {
          idempotencyKey: ctx.idempotencyKey,
          atomicity: "all_or_retry_remaining",
          units: texts.map((text, index) => ({
            index,
            kind: index < media.length ? "media" : "text",
            payload: { text },
            required: true,
          })),
        };
      },
    },
    send: {
      async send(ctx, unit) {
        const target = ctx.message.target;
        const answer = await call(ctx, {
          op: "send",
          chat: target.id,
          text: textOf(unit),
          key: ctx.unitIdempotencyKey,
          ...(target.threadId ? { thread: target.threadId } : {}),
        });
        return part(answer.id, unit);
      },
      async edit(ctx, target, unit) {
        try {
          await call(ctx, {
            op: "edit",
            id: target.platformMessageId,
            text: textOf(unit),
            key: ctx.unitIdempotencyKey,
          });
        } catch (error) {
          // "message is not modified" is success for an edit.
          if (!(error instanceof FakePlatformError && error.code === "not_modified")) throw error;
        }
        return { ...target, kind: unit.kind, index: unit.index };
      },
      async delete(ctx, target) {
        await call(ctx, {
          op: "delete",
          id: target.platformMessageId,
          key: ctx.unitIdempotencyKey,
        });
      },
      classifyError: (error) => classifyFake(error, scope),
      ...(options.reconcile
        ? {
            async reconcileUnknownSend(ctx, units) {
              const found: MessageReceiptPart[] = [];
              for (const unit of units) {
                const answer = await call(ctx, {
                  op: "find",
                  key: `${ctx.idempotencyKey}#${unit.index}`,
                });
                if (answer.found) found.push(part(answer.found.id, unit));
              }
              return found.length > 0
                ? { status: "sent" as const, parts: found }
                : { status: "not_sent" as const };
            },
          }
        : {}),
    },
    ...(options.live ? { live: fakeLiveAdapter(options.transport, options.live) } : {}),
    ...(options.routes
      ? {
          rateLimitRoute: (c) =>
            `${METHOD[c.operation] ?? "POST"} /chats/${c.target.id}/${c.operation.startsWith("stream") ? "streams" : "messages"}`,
        }
      : {}),
  };
}

function fakeLiveAdapter(
  transport: FakeTransport,
  o: NonNullable<FakeAdapterOptions["live"]>,
): MessageLiveAdapter {
  const call = reporting(transport);
  const previews = {
    ...(o.onCancel ? { onCancel: o.onCancel } : {}),
    ...(o.onRecover ? { onRecover: o.onRecover } : {}),
    ...(o.staleAfterMs !== undefined ? { staleAfterMs: o.staleAfterMs } : {}),
  };
  const live: MessageLiveAdapter = { previews };
  if (o.typing) {
    live.typing = {
      refreshMs: typeof o.typing === "object" ? o.typing.refreshMs : 4_000,
      async start(ctx) {
        await transport({ op: "typing", chat: ctx.message.target.id, on: true });
      },
      async stop(ctx) {
        await transport({ op: "typing", chat: ctx.message.target.id, on: false });
      },
    };
  }
  if (o.stream) {
    const streamOptions = typeof o.stream === "object" ? o.stream : {};
    const appends = streamOptions.stop === "append";
    live.stream = {
      ...(streamOptions.supports ? { supports: streamOptions.supports } : {}),
      async begin(ctx, markdown) {
        const target = ctx.message.target;
        const answer = await call(ctx, {
          op: "stream_begin",
          chat: target.id,
          text: markdown,
          key: ctx.unitIdempotencyKey,
          ...(target.threadId ? { thread: target.threadId } : {}),
        });
        return { platformMessageId: answer.id ?? "", kind: "text", index: 0 };
      },
      async append(ctx, stream, deltaMarkdown) {
        await call(ctx, { op: "stream_append", id: stream.platformMessageId, text: deltaMarkdown });
      },
      async finish(ctx, stream, final) {
        const id = stream.platformMessageId;
        if (!appends || final === undefined) {
          await call(ctx, {
            op: "stream_finish",
            id,
            ...(final !== undefined ? { text: final.markdown } : {}),
          });
          return stream;
        }
        const rest = unshownStreamText(final);
        if (rest !== undefined) {
          await call(ctx, { op: "stream_finish", id, append: rest });
          return stream;
        }
        // What the stream shows is uncertain: stop it as it is, then replace the text.
        await call(ctx, { op: "stream_finish", id });
        try {
          await call(ctx, { op: "edit", id, text: final.markdown });
        } catch (error) {
          if (!(error instanceof FakePlatformError && error.code === "not_modified")) throw error;
        }
        return stream;
      },
    };
  }
  return live;
}
