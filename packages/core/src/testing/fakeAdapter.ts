/**
 * A channel adapter for the {@link FakePlatform}, in process or over HTTP
 * ({@link serveFakePlatform} / {@link httpTransport}). It classifies errors the way real
 * adapters must: refused → `not_dispatched`; reset / 5xx → `maybe_sent`; 429 → `rate_limit`
 * with `retryAfterMs` converted from seconds.
 *
 * @module
 */
import type { ChannelMessageAdapter, ClassifiedFailure } from "../adapter/types.ts";
import type { RenderedMessageUnit } from "../message/batch.ts";
import type { MessageCapabilities } from "../message/capabilities.ts";
import type { MessageReceiptPart } from "../message/receipt.ts";
import {
  FakePlatform,
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
  /** Provide `reconcileUnknownSend` (looks messages up by unit key). */
  reconcile?: boolean;
  unknownSendPolicy?: "hold" | "at_least_once";
  /** Text chunk limit in UTF-16 units. @defaultValue 4096 */
  maxLength?: number;
  rateLimits?: MessageCapabilities["rateLimits"];
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

function classifyFake(error: unknown): ClassifiedFailure {
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
      rateLimitScope: "chat",
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

/** A channel adapter over a fake platform. */
export function createFakeAdapter(options: FakeAdapterOptions): ChannelMessageAdapter {
  const max = options.maxLength ?? 4096;
  const { transport } = options;
  const textOf = (unit: RenderedMessageUnit) => (unit.payload as { text: string }).text;
  const part = (id: string | undefined, unit: RenderedMessageUnit): MessageReceiptPart => ({
    platformMessageId: id ?? "",
    kind: unit.kind,
    index: unit.index,
  });
  return {
    id: options.id ?? "qa",
    capabilities: {
      text: { maxLength: max, chunking: true },
      live: { edit: true, delete: true },
      delivery: {
        idempotencyKey: options.idempotent ?? false,
        retryAfter: true,
        unknownSendPolicy: options.unknownSendPolicy ?? "hold",
        freshSendOnEditNotFound: true,
      },
      ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
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
        const answer = await transport({
          op: "send",
          chat: target.id,
          text: textOf(unit),
          key: ctx.unitIdempotencyKey,
          ...(target.threadId ? { thread: target.threadId } : {}),
        });
        return part(answer.id, unit);
      },
      async edit(_ctx, target, unit) {
        try {
          await transport({ op: "edit", id: target.platformMessageId, text: textOf(unit) });
        } catch (error) {
          // "message is not modified" is success for an edit.
          if (!(error instanceof FakePlatformError && error.code === "not_modified")) throw error;
        }
        return { ...target, kind: unit.kind, index: unit.index };
      },
      async delete(_ctx, target) {
        await transport({ op: "delete", id: target.platformMessageId });
      },
      classifyError: (error) => classifyFake(error),
      ...(options.reconcile
        ? {
            async reconcileUnknownSend(ctx, units) {
              const found: MessageReceiptPart[] = [];
              for (const unit of units) {
                const answer = await transport({
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
  };
}

