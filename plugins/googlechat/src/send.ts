/**
 * Sending, editing and deleting on Google Chat. One unit is one `spaces.messages.create`.
 *
 * **Exactly once.** Every create carries a `requestId` and a client-assigned `messageId`
 * (`client-…`), both derived from the unit's idempotency key with the SDK's `platformKey`, so a
 * replay after a reset, a timeout or a crash returns the stored message instead of posting
 * again, and reconciliation can `GET spaces/S/messages/client-…` directly (PLATFORMS.md §2, §8).
 * Google documents no retention for `requestId`; the client id is unique in the space for as
 * long as the message exists. So a replay that Google no longer matches by `requestId` is
 * answered `409 ALREADY_EXISTS` for the client id — proof that the unit's message exists: it is
 * read back by that id and committed, and the later parts are sent (C41, PLATFORMS.md §9); one
 * deleted since counts as sent and is not posted again.
 *
 * **Threads.** The thread is the target's `threadId` (else the reply relation's): the
 * inbound's `thread.name`, validated as `spaces/*\/threads/*` before anything is sent, and sent
 * with `messageReplyOption: REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD` whenever it is set (C21). A
 * thread name that is not one — a message name, another space's thread — or a 400 about the
 * thread from the platform gets exactly one fallback, a top-level post, with the reason logged
 * and kept on the receipt part (`raw.threadFallback`); the later chunks of that message follow
 * it, so a permanent 4xx never loops (C35). Every chunk of a threaded message goes to the same
 * thread.
 *
 * **Quotes.** Placement `quote` quotes the inbound on the first chunk
 * (`quotedMessageMetadata`, which needs the quoted message's last update time: one `GET`).
 *
 * **Cards.** A card Chat refuses (400, or 403: cards need app authentication) is sent once as
 * its plain-text fallback in the same place, the reason kept on the part (`raw.cardFallback`).
 *
 * Source: https://developers.google.com/workspace/chat/api/reference/rest/v1/spaces.messages/create
 *
 * @module
 */
import {
  literalTree,
  type MessageReceiptPart,
  type MessageSendAdapter,
  type MessageSendContext,
  PLATFORM_KEY_ALPHABETS,
  platformKey,
  type ReconcileResult,
  type RenderedMessageUnit,
  renderGoogleChat,
  unitIdempotencyKey,
} from "@herald/plugin-sdk/channel-message";
import type { ChatApi, ChatMessage, CreateMessageParams } from "./client.ts";
import { GOOGLE_CHAT_TEXT_LIMIT } from "./config.ts";
import { classifyError, GoogleChatApiError } from "./errors.ts";
import { spaceNameOf, threadNameProblem } from "./names.ts";
import { type GoogleChatUnitPayload, MARKUP_SYNTAX } from "./render.ts";

/** The reply option of every threaded create (C21). */
export const REPLY_OPTION = "REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD";

/**
 * The client-assigned message id of a unit: `client-` + 56 base36 characters of the key's
 * SHA-256 (Google Chat: `client-[a-z0-9-]`, ≤ 63 characters, unique in the space).
 */
export function clientMessageId(unitKey: string): string {
  return platformKey(unitKey, {
    maxLength: 63,
    prefix: "client-",
    alphabet: PLATFORM_KEY_ALPHABETS.base36,
  });
}

/** The `requestId` of a unit (stable across retries of that unit, distinct from the messageId). */
export function requestIdOf(unitKey: string): string {
  return platformKey(`request:${unitKey}`, {
    maxLength: 48,
    prefix: "herald-",
    alphabet: PLATFORM_KEY_ALPHABETS.base36,
  });
}

/** The space of a send: `target.nativeChannelId`, else `target.id`. */
export function spaceOf(ctx: MessageSendContext): string {
  const target = ctx.message.target;
  return spaceNameOf(target.nativeChannelId ?? target.id);
}

/** The thread a send asks for: the target's, else the reply relation's. */
export function requestedThread(ctx: MessageSendContext): string | undefined {
  const { target, relation } = ctx.message;
  const thread = target.threadId ?? (relation?.kind === "reply" ? relation.threadId : undefined);
  return thread === "" ? undefined : thread;
}

type Fallback = { threadFallback: string };

/** Whether an earlier chunk of this message already fell back to the top level. */
function fellBack(ctx: MessageSendContext): boolean {
  return (ctx.previousReceipt?.parts ?? []).some(
    (p) => (p.raw as Partial<Fallback> | undefined)?.threadFallback !== undefined,
  );
}

function partOf(
  message: ChatMessage,
  unit: RenderedMessageUnit,
  extra: { thread?: boolean; replyToId?: string; fallback?: string },
): MessageReceiptPart {
  const thread = extra.thread ? message.thread?.name : undefined;
  return {
    platformMessageId: String(message.name),
    kind: unit.kind,
    index: unit.index,
    ...(thread ? { threadId: thread } : {}),
    ...(extra.replyToId ? { replyToId: extra.replyToId } : {}),
    ...(extra.fallback ? { raw: { threadFallback: extra.fallback } satisfies Fallback } : {}),
  };
}

/** The request body of a unit (without thread and quote). */
function bodyOf(payload: GoogleChatUnitPayload): ChatMessage {
  return {
    ...(payload.text !== undefined ? { text: payload.text, markupSyntax: MARKUP_SYNTAX } : {}),
    ...(payload.cardsV2 ? { cardsV2: payload.cardsV2 } : {}),
    ...(payload.fallbackText ? { fallbackText: payload.fallbackText } : {}),
  };
}

/**
 * A card's plain-text fallback as Chat text (literal, escaped) within Chat's text limit: the
 * longest prefix of whole graphemes that fits, then " …" (`cut`), when all of it does not.
 */
export function fallbackTextOf(fallback: string): { text: string; cut: boolean } {
  const whole = renderGoogleChat(literalTree(fallback));
  if (whole.length <= GOOGLE_CHAT_TEXT_LIMIT) return { text: whole, cut: false };
  const marks = [...new Intl.Segmenter().segment(fallback)].map((g) => g.index);
  const at = (n: number) => `${renderGoogleChat(literalTree(fallback.slice(0, marks[n])))} …`;
  let lo = 0;
  let hi = marks.length;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (at(mid).length <= GOOGLE_CHAT_TEXT_LIMIT) lo = mid;
    else hi = mid;
  }
  return { text: at(lo), cut: true };
}

/** The update mask of an edit to `payload`. */
export function updateMaskOf(payload: GoogleChatUnitPayload): string {
  return [payload.text !== undefined ? "text" : "", payload.cardsV2 ? "cards_v2" : ""]
    .filter(Boolean)
    .join(",");
}

/** What the send adapter needs. */
export type SendDeps = {
  api: ChatApi;
  /** Credentials to redact from classified failures. */
  secrets: readonly string[];
};

/**
 * The send adapter: `send` creates (with requestId + messageId, thread and reply option),
 * `edit` updates with an `updateMask`, `delete` deletes (a message already gone is deleted),
 * `reconcileUnknownSend` looks the units up by their client-assigned ids.
 */
export function createSend(deps: SendDeps): MessageSendAdapter {
  const { api, secrets } = deps;

  async function quoteOf(ctx: MessageSendContext, unit: RenderedMessageUnit) {
    const relation = ctx.message.relation;
    if (unit.index !== 0 || relation?.kind !== "reply" || relation.placement !== "quote") return;
    if (!relation.replyToId) return;
    try {
      const quoted = await api.get(relation.replyToId, ctx.signal);
      const lastUpdateTime = quoted.lastUpdateTime ?? quoted.createTime;
      if (!lastUpdateTime) return;
      return { name: relation.replyToId, lastUpdateTime };
    } catch (error) {
      ctx.log.warn(
        { replyToId: relation.replyToId, failure: classifyError(error, secrets).message },
        "googlechat: the quoted message could not be read; replying without the quote",
      );
      return undefined;
    }
  }

  /**
   * `spaces.messages.create`, where a `409 ALREADY_EXISTS` for the unit's own client id on a
   * replay (attempt 2 or later) is the evidence that an earlier attempt created the message —
   * its answer was lost and Google no longer matches the `requestId` (C41). The message is read
   * by `spaces/S/messages/client-…` and returned as if the create had answered. One that can no
   * longer be read was deleted since: it was sent, and is not posted again (as Discord's 10008
   * on a nonce replay); its part names it by the client name. On a first attempt nothing of
   * ours can hold the id yet, so the 409 stays a `conflict`.
   */
  async function createOrFind(
    ctx: MessageSendContext,
    params: CreateMessageParams,
  ): Promise<ChatMessage> {
    try {
      return await api.create(params, ctx.signal);
    } catch (error) {
      if (!(error instanceof GoogleChatApiError && error.alreadyExists && ctx.attempt > 1)) {
        throw error;
      }
      const name = `${params.parent}/messages/${params.messageId}`;
      try {
        const found = await api.get(name, ctx.signal);
        ctx.log.info(
          { messageId: params.messageId, name: found.name },
          "googlechat: create answered 409 ALREADY_EXISTS for this unit's client id: the message exists; committed by lookup (C41)",
        );
        return found;
      } catch (lookup) {
        if (!(lookup instanceof GoogleChatApiError && lookup.status === 404)) throw lookup;
        ctx.log.warn(
          { messageId: params.messageId, name },
          "googlechat: create answered 409 ALREADY_EXISTS for this unit's client id, but the message was deleted since: counted as sent, not posted again (C41)",
        );
        return { name };
      }
    }
  }

  async function deliver(
    ctx: MessageSendContext,
    unit: RenderedMessageUnit,
    payload: GoogleChatUnitPayload,
  ): Promise<MessageReceiptPart> {
    const space = spaceOf(ctx);
    const key = ctx.unitIdempotencyKey;
    const ids = { parent: space, requestId: requestIdOf(key), messageId: clientMessageId(key) };
    const base = bodyOf(payload);
    const quote = await quoteOf(ctx, unit);
    const quoted = quote ? { quotedMessageMetadata: quote } : {};
    const replyToId = quote?.name;
    const wanted = fellBack(ctx) ? undefined : requestedThread(ctx);
    let fallback = wanted === undefined ? undefined : threadNameProblem(wanted, space);
    if (wanted !== undefined && fallback === undefined) {
      try {
        const created = await createOrFind(ctx, {
          ...ids,
          messageReplyOption: REPLY_OPTION,
          requestBody: { ...base, ...quoted, thread: { name: wanted } },
        });
        return partOf(created, unit, { thread: true, ...(replyToId ? { replyToId } : {}) });
      } catch (error) {
        if (!(error instanceof GoogleChatApiError && error.invalidThread)) throw error;
        fallback = `the platform refused thread ${wanted}: ${error.message}`;
      }
    }
    if (fallback !== undefined) {
      ctx.log.warn(
        { thread: wanted, reason: fallback },
        "googlechat: thread target refused; posting top-level once (C35)",
      );
    }
    const created = await createOrFind(ctx, { ...ids, requestBody: { ...base, ...quoted } });
    return partOf(created, unit, {
      ...(replyToId ? { replyToId } : {}),
      ...(fallback !== undefined ? { fallback } : {}),
    });
  }

  return {
    async send(ctx, unit) {
      const payload = unit.payload as GoogleChatUnitPayload;
      try {
        return await deliver(ctx, unit, payload);
      } catch (error) {
        // Chat refused the card (a 400 on the card, cards without app authentication: 403):
        // the card's plain-text fallback once, in the same place (seed "Thread-message routing").
        const refused =
          error instanceof GoogleChatApiError && (error.status === 400 || error.status === 403);
        if (!payload.cardsV2 || !payload.fallbackText || !refused || error.invalidThread)
          throw error;
        ctx.log.warn(
          { reason: error.message },
          "googlechat: the card was refused; sending its text fallback once",
        );
        // One unit, one message: a fallback longer than Chat's text limit keeps its first
        // 4,096 characters (marked "…" and on the part) instead of failing the whole message.
        const { text, cut } = fallbackTextOf(payload.fallbackText);
        const part = await deliver(ctx, unit, { text });
        return {
          ...part,
          raw: {
            ...(part.raw as object | undefined),
            cardFallback: error.message,
            ...(cut ? { cardFallbackTruncated: true } : {}),
          },
        };
      }
    },

    async edit(ctx, target, unit) {
      const payload = unit.payload as GoogleChatUnitPayload;
      await api.update(
        target.platformMessageId,
        updateMaskOf(payload),
        bodyOf(payload),
        ctx.signal,
      );
      return { ...target, kind: unit.kind, index: unit.index };
    },

    async delete(ctx, target) {
      try {
        await api.delete(target.platformMessageId, ctx.signal);
      } catch (error) {
        // Already gone (a user deleted it, or a replay of a delete that landed): deleted.
        if (error instanceof GoogleChatApiError && error.status === 404) return;
        throw error;
      }
    },

    async reconcileUnknownSend(ctx, units): Promise<ReconcileResult> {
      const space = spaceOf(ctx);
      const parts: MessageReceiptPart[] = [];
      for (const unit of units) {
        const id = clientMessageId(unitIdempotencyKey(ctx.idempotencyKey, unit.index));
        try {
          const found = await api.get(`${space}/messages/${id}`, ctx.signal);
          parts.push(partOf(found, unit, { thread: requestedThread(ctx) !== undefined }));
        } catch (error) {
          if (error instanceof GoogleChatApiError && error.status === 404) break;
          return { status: "unresolved", reason: classifyError(error, secrets).message };
        }
      }
      return parts.length ? { status: "sent", parts } : { status: "not_sent" };
    },

    classifyError: (error) => classifyError(error, secrets),
  };
}
