/**
 * The `/sync` receiver: long-polls `GET /sync?since=<next_batch>` and hands every timeline event
 * to herald, with `next_batch` kept in the SDK's **cursor tracker** — a batch's `next_batch` is
 * persisted only once every event of it (and of every earlier batch) is durably recorded, so a
 * restart resumes at the oldest batch with unfinished work and events fetched again are answered
 * as duplicates by herald's dedupe (CASES C31 a). A restart without a usable token starts with
 * an initial sync; its events go through dedupe too, never through a start-time cutoff (C31 b).
 *
 * A `limited: true` timeline (more new events than the filter's limit) is **back-filled** with
 * `GET /rooms/{roomId}/messages?from=<prev_batch>&to=<since>&dir=b` before the batch is handed
 * over, page by page up to `backfillMaxPages`; a gap larger than that is logged as an error with
 * the count fetched (never skipped silently). If the back-fill fails, the same `/sync` is asked
 * again (the cursor does not move). An initial sync's `limited` flag only says that older
 * history exists: it is not back-filled.
 *
 * An initial sync hands over the events of its timelines except membership events, which are
 * the rooms' history there (their count is logged).
 *
 * Invites follow `sync.invites` (`join`, `allowlist` of inviters, or `ignore`). A room whose state
 * turns on encryption is marked in the account's {@link EncryptedRooms} (its sends then fail
 * with `MatrixEncryptedRoomError`) and logged once; its `m.room.encrypted` events are
 * dead-lettered with that error by `normalize`.
 *
 * When herald answers `retry` for an event (busy elsewhere, store unavailable), the SDK's
 * redelivery helper hands it over again; its batch stays unfinished until it is accepted.
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#syncing,
 * https://spec.matrix.org/latest/client-server-api/#get_matrixclientv3roomsroomidmessages
 *
 * @module
 */
import {
  type ChannelReceiver,
  type ChannelReceiverSink,
  type CursorTracker,
  createRedelivery,
  receiverHealth,
  sleep,
} from "@herald/plugin-sdk/channel-message";
import { type MatrixHttp, seg } from "./client.ts";
import type { MatrixSyncConfig } from "./config.ts";
import { classifyError } from "./errors.ts";
import type { MatrixInbound } from "./receive.ts";
import type { EncryptedRooms } from "./rooms.ts";

/** Most time between two `/sync` after failures, in ms. */
const MAX_RETRY_DELAY_MS = 30_000;

type ClientEvent = MatrixInbound["event"];

type JoinedRoom = {
  timeline?: { events?: ClientEvent[]; limited?: boolean; prev_batch?: string };
  state?: { events?: ClientEvent[] };
  summary?: { "m.joined_member_count"?: number };
};

type InvitedRoom = { invite_state?: { events?: Array<Partial<ClientEvent>> } };

type SyncAnswer = {
  next_batch?: unknown;
  rooms?: { join?: Record<string, JoinedRoom>; invite?: Record<string, InvitedRoom> };
};

type MessagesAnswer = { chunk?: ClientEvent[]; end?: string };

/** Options of {@link createSyncReceiver}. */
export type SyncReceiverOptions = {
  http: MatrixHttp;
  sink: ChannelReceiverSink;
  config: MatrixSyncConfig;
  /** The bot's user id (invites name it in `state_key`). */
  userId: string | undefined;
  rooms: EncryptedRooms;
  /** Added to `pollTimeoutMs` for the request timeout of a long poll, in ms. */
  requestTimeoutMs: number;
  /** Epoch-ms clock of the health timestamps. @defaultValue Date.now */
  clock?: () => number;
};

/**
 * Creates the `/sync` receiver. `start()` resolves once the cursor is loaded; syncing continues
 * in the background until `stop()`.
 */
export function createSyncReceiver(options: SyncReceiverOptions): ChannelReceiver {
  const { http, sink, config, rooms } = options;
  const log = sink.logger;
  const health = receiverHealth(options.clock);
  const memberCounts = new Map<string, number>();
  const warnedEncrypted = new Set<string>();
  const invitesSeen = new Set<string>();
  const filter = JSON.stringify({ room: { timeline: { limit: config.timelineLimit } } });
  let controller: AbortController | undefined;
  let loop: Promise<void> | undefined;
  const redelivery = createRedelivery({
    sink,
    logger: log,
    baseDelayMs: config.retryDelayMs,
  });

  const markEncryption = (roomId: string, events: readonly ClientEvent[]) => {
    if (!events.some((e) => e.type === "m.room.encryption")) return;
    rooms.markEncrypted(roomId);
    if (warnedEncrypted.has(roomId)) return;
    warnedEncrypted.add(roomId);
    log.error(
      { roomId, code: "HERALD_MATRIX_ENCRYPTED" },
      "matrix: room is end-to-end encrypted; @herald/plugin-matrix does not support encryption: its messages are dead-lettered and sends to it fail",
    );
  };

  /** Events of a gap, oldest first: `/messages` backwards from `from` down to `to`. */
  const backfill = async (
    roomId: string,
    from: string,
    to: string,
    signal: AbortSignal,
  ): Promise<ClientEvent[]> => {
    const newestFirst: ClientEvent[] = [];
    let token: string | undefined = from;
    let pages = 0;
    while (token !== undefined && pages < config.backfillMaxPages) {
      const page: MessagesAnswer = await http.request<MessagesAnswer>(
        "GET",
        `/rooms/${seg(roomId)}/messages`,
        "GET /rooms/{roomId}/messages",
        {
          query: { from: token, to, dir: "b", limit: String(config.backfillPageSize) },
          signal,
        },
      );
      pages += 1;
      const chunk = page.chunk ?? [];
      newestFirst.push(...chunk);
      token = chunk.length > 0 ? page.end : undefined;
    }
    if (token !== undefined) {
      log.error(
        { roomId, fetched: newestFirst.length, pages },
        "matrix: a limited timeline was larger than backfillMaxPages pages: older events of the gap were not fetched",
      );
    }
    return newestFirst.reverse();
  };

  const handleInvites = async (invite: Record<string, InvitedRoom>, signal: AbortSignal) => {
    for (const [roomId, room] of Object.entries(invite)) {
      const me = room.invite_state?.events?.find(
        (e) => e.type === "m.room.member" && e.state_key === options.userId,
      );
      const inviter = me?.sender;
      const join =
        config.invites === "join" ||
        (config.invites === "allowlist" &&
          inviter !== undefined &&
          config.inviters.includes(inviter));
      if (!join) {
        if (!invitesSeen.has(roomId)) {
          invitesSeen.add(roomId);
          log.info(
            { roomId, inviter, invites: config.invites },
            "matrix: invite not joined (sync.invites)",
          );
        }
        continue;
      }
      try {
        await http.request("POST", `/join/${seg(roomId)}`, "POST /join/{roomId}", {
          body: {},
          signal,
        });
        log.info({ roomId, inviter }, "matrix: joined a room on invite");
      } catch (error) {
        log.warn(
          { roomId, err: classifyError(error).message },
          "matrix: joining an invited room failed",
        );
      }
    }
  };

  async function run(tracker: CursorTracker, signal: AbortSignal): Promise<void> {
    let since = tracker.safe();
    let delayMs = config.retryDelayMs;
    const pause = (ms: number) => sleep(ms, signal).catch(() => {});
    while (!signal.aborted) {
      let answer: SyncAnswer;
      let inbound: MatrixInbound[];
      try {
        answer = await http.request<SyncAnswer>("GET", "/sync", "GET /sync", {
          query: {
            since,
            filter,
            timeout: String(since === undefined ? 0 : config.pollTimeoutMs),
          },
          signal,
          timeoutMs: config.pollTimeoutMs + options.requestTimeoutMs,
        });
        if (typeof answer.next_batch !== "string" || answer.next_batch === "")
          throw new Error("/sync answered without a next_batch");
        inbound = [];
        for (const [roomId, room] of Object.entries(answer.rooms?.join ?? {})) {
          const count = room.summary?.["m.joined_member_count"];
          if (typeof count === "number") memberCounts.set(roomId, count);
          const timeline = room.timeline?.events ?? [];
          markEncryption(roomId, [...(room.state?.events ?? []), ...timeline]);
          let events = timeline;
          if (room.timeline?.limited && since !== undefined && room.timeline.prev_batch) {
            const gap = await backfill(roomId, room.timeline.prev_batch, since, signal);
            const known = new Set(timeline.map((e) => e.event_id));
            events = [...gap.filter((e) => !known.has(e.event_id)), ...timeline];
            log.info({ roomId, backfilled: gap.length }, "matrix: back-filled a limited timeline");
          }
          const joined = memberCounts.get(roomId);
          if (since === undefined) {
            // An initial sync's membership events are the room's history, not news.
            const history = events.filter((e) => e.type === "m.room.member").length;
            if (history > 0) {
              log.info(
                { roomId, skipped: history },
                "matrix: initial sync: membership history not handed over",
              );
              events = events.filter((e) => e.type !== "m.room.member");
            }
          }
          for (const event of events) {
            inbound.push({
              room_id: roomId,
              event,
              ...(joined !== undefined ? { joined_member_count: joined } : {}),
            });
          }
        }
      } catch (error) {
        if (signal.aborted) break;
        const failure = classifyError(error);
        if (failure.kind === "auth") {
          health.set(
            "down",
            `/sync: access token rejected (${failure.platformCode ?? failure.kind})`,
          );
          log.error(
            { err: failure.message },
            "matrix: the access token was rejected: sync stopped",
          );
          return;
        }
        health.set("connecting", `/sync failing: ${failure.message}`);
        log.warn({ err: failure.message }, "matrix: /sync failed; retrying");
        await pause(delayMs);
        delayMs = Math.min(delayMs * 2, MAX_RETRY_DELAY_MS);
        continue;
      }
      delayMs = config.retryDelayMs;
      health.set("up");
      // Every event of the batch is added before any completes: none can be passed over.
      const batch = tracker.batch(answer.next_batch as string);
      const items = inbound.map((raw) => ({ raw, item: batch.item() }));
      for (const { raw, item } of items) {
        void redelivery.deliver(raw, {}, (ack) => {
          item.track(ack).catch((error: unknown) => {
            log.warn({ err: error }, "matrix: sync cursor not written");
          });
        });
      }
      batch.seal().catch((error: unknown) => {
        log.warn({ err: error }, "matrix: sync cursor not written");
      });
      since = answer.next_batch as string;
      if (answer.rooms?.invite) await handleInvites(answer.rooms.invite, signal);
    }
  }

  return {
    health: health.get,
    async start() {
      if (loop) return;
      health.set("connecting", "starting");
      controller = new AbortController();
      const tracker = sink.cursor("sync");
      await tracker.load();
      loop = run(tracker, controller.signal).then(
        () => {
          if (health.get().state !== "down") health.set("down", "stopped");
        },
        (error: unknown) => {
          health.set("down", `sync loop failed: ${(error as Error).message}`);
          log.error({ err: error }, "matrix: sync loop stopped");
        },
      );
    },
    async stop() {
      controller?.abort();
      await loop;
      loop = undefined;
      redelivery.close();
    },
  };
}
