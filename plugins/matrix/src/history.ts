/**
 * History on Matrix ([H23]): the recent messages of a room, read backwards with
 * `GET /rooms/{roomId}/messages?dir=b` (a `RoomEventFilter` on `m.room.message`), or of a thread
 * through the relations API (`GET /_matrix/client/v1/rooms/{roomId}/relations/{root}/m.thread`)
 * plus its root; normalized like inbound messages (the bot's own with `direction: "outbound"`),
 * edits folded away (the replacement events are skipped, the original shows as sent), redacted
 * events left out, oldest first. `before` (an event ref) pages back past that event.
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#get_matrixclientv3roomsroomidmessages,
 * https://spec.matrix.org/latest/client-server-api/#get_matrixclientv1roomsroomidrelationseventidreltype
 *
 * @module
 */
import {
  type ChannelMessage,
  type FeatureContext,
  type HistoryQuery,
  type MessageHistoryAdapter,
  parseRef,
} from "@herald/plugin-sdk/channel-message";
import { type MatrixHttp, seg } from "./client.ts";
import { createReceive } from "./receive.ts";
import { roomIdOf } from "./send.ts";

const MESSAGES_CALL = "GET /rooms/{roomId}/messages";
const THREAD_CALL = "GET /rooms/{roomId}/relations/{eventId}/m.thread";
const EVENT_CALL = "GET /rooms/{roomId}/event/{eventId}";
/** Most pages read per query (100 events each). */
const MAX_PAGES = 10;
/** Most messages one query returns (`capabilities.history.maxLimit`). */
export const MATRIX_HISTORY_MAX_LIMIT = 100;

type ClientEvent = {
  event_id: string;
  type: string;
  sender: string;
  origin_server_ts: number;
  content: Record<string, unknown>;
  unsigned?: Record<string, unknown>;
};
type Page = { chunk?: ClientEvent[]; end?: unknown; next_batch?: unknown };

/**
 * The history adapter of one account.
 * @param userId - the bot's user id (its messages are `outbound`).
 */
export function createHistory(http: MatrixHttp, userId: string | undefined): MessageHistoryAdapter {
  const receive = createReceive({ userId });

  const normalize = async (
    ctx: FeatureContext,
    room: string,
    event: ClientEvent,
  ): Promise<ChannelMessage | undefined> => {
    if (event.type !== "m.room.message" || event.unsigned?.redacted_because) return undefined;
    const rel = event.content["m.relates_to"] as { rel_type?: unknown } | undefined;
    if (rel?.rel_type === "m.replace") return undefined;
    const out = await receive.normalize({ room_id: room, event }, {
      channel: ctx.channel,
      accountId: ctx.accountId,
      receivedAt: Date.now(),
    } as never);
    if (!out || (out as { kind?: string }).kind !== undefined) return undefined;
    const message = out as ChannelMessage;
    return message.sender?.isSelf ? { ...message, direction: "outbound" } : message;
  };

  /** Newest-first events of the room (or thread), in pages. */
  async function* pages(ctx: FeatureContext, room: string, thread: string | undefined) {
    let from: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = thread
        ? await http.request<Page>(
            "GET",
            `/rooms/${seg(room)}/relations/${seg(thread)}/m.thread`,
            THREAD_CALL,
            { prefix: "/_matrix/client/v1", query: { limit: "100", from }, signal: ctx.signal },
          )
        : await http.request<Page>("GET", `/rooms/${seg(room)}/messages`, MESSAGES_CALL, {
            query: {
              dir: "b",
              limit: "100",
              from,
              filter: JSON.stringify({ types: ["m.room.message"] }),
            },
            signal: ctx.signal,
          });
      yield answer.chunk ?? [];
      const next = thread ? answer.next_batch : answer.end;
      if (typeof next !== "string" || (answer.chunk ?? []).length === 0) return;
      from = next;
    }
  }

  return {
    async list(ctx, query: HistoryQuery) {
      const room = roomIdOf(query.target);
      const limit = Math.max(1, Math.min(query.limit, MATRIX_HISTORY_MAX_LIMIT));
      const thread = query.threadId
        ? query.threadId.startsWith("$")
          ? query.threadId
          : parseRef(query.threadId, { fallbackContainer: room, label: "Matrix thread" }).id
        : undefined;
      const before = query.before
        ? parseRef(query.before, { fallbackContainer: room, label: "Matrix event ref" }).id
        : undefined;
      let passed = before === undefined;
      const out: ChannelMessage[] = [];
      for await (const chunk of pages(ctx, room, thread)) {
        for (const event of chunk) {
          if (!passed) {
            passed = event.event_id === before;
            continue;
          }
          const message = await normalize(ctx, room, event);
          if (message) out.push(message);
          if (out.length === limit) return out.reverse();
        }
      }
      if (thread && passed && thread !== before) {
        const root = await http.request<ClientEvent>(
          "GET",
          `/rooms/${seg(room)}/event/${seg(thread)}`,
          EVENT_CALL,
          { signal: ctx.signal },
        );
        const message = await normalize(ctx, room, root);
        if (message) out.push(message);
      }
      return out.reverse();
    },
  };
}
