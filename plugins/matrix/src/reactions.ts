/**
 * Reactions on Matrix ([H23]): an `m.reaction` event annotating the message
 * (`m.relates_to: { rel_type: "m.annotation", event_id, key }`), sent with a transaction id
 * like every other send — a replay of the same intent gets the same event back, never a second
 * reaction. Removing is redacting the bot's reaction: the bot's `m.reaction` events with that
 * key on the message are found through the relations API
 * (`GET /_matrix/client/v1/rooms/{roomId}/relations/{eventId}/m.annotation/m.reaction`) and each
 * is redacted with a txnId of the intent and that event; none left (already removed, a replay)
 * is success — a replay never toggles a reaction on again.
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#event-annotations-and-reactions,
 * https://spec.matrix.org/latest/client-server-api/#get_matrixclientv1roomsroomidrelationseventidreltypeeventtype
 *
 * @module
 */
import type {
  MessageReceiptPart,
  MessageSendContext,
  ReactRequest,
} from "@herald/plugin-sdk/channel-message";
import { type MatrixHttp, seg } from "./client.ts";
import { MatrixNetworkError } from "./errors.ts";
import { SENT_CONTENT_KEY } from "./origin.ts";
import { eventRef, parseEventRef, roomIdOf, txnIdOf } from "./send.ts";

const REACT_CALL = "PUT /rooms/{roomId}/send/m.reaction/{txnId}";
const RELATIONS_CALL = "GET /rooms/{roomId}/relations/{eventId}/m.annotation/m.reaction";
const REDACT_CALL = "PUT /rooms/{roomId}/redact/{eventId}/{txnId}";
/** Most relation pages read when removing (50 annotations each). */
const MAX_PAGES = 10;

type RelationsPage = {
  chunk?: Array<{ event_id?: unknown; sender?: unknown; content?: Record<string, unknown> }>;
  next_batch?: unknown;
};

/** The bot's `m.reaction` event ids with `key` on `event` (not redacted: the server drops those). */
export async function ownReactions(
  http: MatrixHttp,
  signal: AbortSignal | undefined,
  room: string,
  event: string,
  userId: string,
  key: string,
): Promise<string[]> {
  const out: string[] = [];
  let from: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await http.request<RelationsPage>(
      "GET",
      `/rooms/${seg(room)}/relations/${seg(event)}/m.annotation/m.reaction`,
      RELATIONS_CALL,
      { prefix: "/_matrix/client/v1", query: { limit: "50", from }, signal },
    );
    for (const e of answer.chunk ?? []) {
      const rel = e.content?.["m.relates_to"] as { key?: unknown } | undefined;
      if (e.sender === userId && rel?.key === key && typeof e.event_id === "string") {
        out.push(e.event_id);
      }
    }
    if (typeof answer.next_batch !== "string") break;
    from = answer.next_batch;
  }
  return out;
}

/**
 * The send adapter's `react`: add by `PUT …/send/m.reaction/{txnId}`, remove by redacting the
 * bot's reactions with that key.
 *
 * @param userId - the bot's user id (its own reactions are the ones removed).
 * @returns the part of an add, `raw.reactionEventId` the reaction event's ref.
 */
export function createReact(
  http: MatrixHttp,
  userId: string | undefined,
): (ctx: MessageSendContext, request: ReactRequest) => Promise<MessageReceiptPart | undefined> {
  return async (ctx, request) => {
    const { room, event } = parseEventRef(request.messageId, roomIdOf(request.target));
    if (request.remove !== true) {
      const txnId = txnIdOf(ctx.unitIdempotencyKey, "send", ctx.intentId);
      const answer = await http.request<{ event_id?: unknown }>(
        "PUT",
        `/rooms/${seg(room)}/send/m.reaction/${seg(txnId)}`,
        REACT_CALL,
        {
          body: {
            "m.relates_to": { rel_type: "m.annotation", event_id: event, key: request.emoji },
            [SENT_CONTENT_KEY]: { v: 1 },
          },
          signal: ctx.signal,
        },
      );
      if (typeof answer?.event_id !== "string") {
        throw new MatrixNetworkError(REACT_CALL, new SyntaxError("answered without an event_id"));
      }
      return {
        platformMessageId: eventRef(room, answer.event_id),
        kind: "reaction",
        index: 0,
        raw: { reactionEventId: eventRef(room, answer.event_id) },
      };
    }
    if (userId === undefined) {
      throw new TypeError("matrix: removing a reaction needs the bot's user id (config.userId)");
    }
    const own = await ownReactions(http, ctx.signal, room, event, userId, request.emoji);
    for (const reaction of own) {
      const txnId = txnIdOf(`${ctx.unitIdempotencyKey}|${reaction}`, "send", ctx.intentId);
      await http.request(
        "PUT",
        `/rooms/${seg(room)}/redact/${seg(reaction)}/${seg(txnId)}`,
        REDACT_CALL,
        { body: { [SENT_CONTENT_KEY]: { v: 1 } }, signal: ctx.signal },
      );
    }
    return undefined;
  };
}
