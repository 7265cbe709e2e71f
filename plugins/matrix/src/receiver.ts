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
 * over, page by page **while the server gives an `end` token, even after an empty page** (C38:
 * Synapse filters a page after fetching it, so `chunk: []` with an `end` is not the end), up to
 * `backfillMaxPages`. A gap that cannot be filled — larger than that, refused, or without
 * `prev_batch` — is logged as an error (`HERALD_MATRIX_GAP_UNFILLED`, with the room and the
 * `from`/`to` tokens) and counted ({@link MatrixSyncCounters}), never skipped silently. If the
 * back-fill fails transiently, the same `/sync` is asked again (the cursor does not move).
 *
 * A failed `/sync` is asked again after the receiver's backoff, or after the wait the homeserver
 * asked for when longer (`M_LIMIT_EXCEEDED` on any status, C45). An initial sync's `limited` flag only says that older
 * history exists: it is not back-filled.
 *
 * An initial sync hands over the events of its timelines except membership events, which are
 * the rooms' history there (their count is logged).
 *
 * Invites follow `sync.invites` (`join`, `allowlist` of inviters, or `ignore`). A room whose state
 * turns on encryption is marked in the account's {@link EncryptedRooms}. With `encryption`
 * configured (`e2ee`), each `/sync`'s to-device events, device lists and one-time-key counts go
 * to the crypto engine — and its store is saved — **before** the batch is handed over and before
 * the next `/sync` acknowledges them (a failure asks the same `/sync` again), and every
 * `m.room.encrypted` event is decrypted before herald sees it (`hydrate.ts`: late keys are
 * waited for, then the event is dead-lettered). Without it, the room's sends fail with
 * `MatrixEncryptedRoomError` (logged once) and its `m.room.encrypted` events are dead-lettered
 * with that error by `normalize`.
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
import { ABANDONED, createHydrator } from "./hydrate.ts";
import { pageBack } from "./messages.ts";
import type { E2eeRef } from "./roomCrypto.ts";
import type { EncryptedRooms } from "./rooms.ts";
import { cryptoPartsOf, membershipsOf } from "./syncCrypto.ts";
import {
  eventIdOf,
  eventTypeOf,
  type ParsedSync,
  parseSyncAnswer,
  type SyncInvite,
} from "./syncShape.ts";

/** Back-fill failures after which the same `/sync` is asked again (the rest would repeat). */
const REFETCH_KINDS: ReadonlySet<string> = new Set(["transient", "rate_limit", "unknown", "auth"]);

/** Most time between two `/sync` after failures, in ms. */
const MAX_RETRY_DELAY_MS = 30_000;

/**
 * What the receiver counts since it was created (read them with `counters()`; each unfilled gap
 * is also logged as an error with code `HERALD_MATRIX_GAP_UNFILLED`, its room and tokens).
 */
export type MatrixSyncCounters = {
  /** Gaps of `limited` timelines that stayed (partly) unfilled: refused, too large, no `prev_batch`. */
  gapsUnfilled: number;
  /** Events fetched by back-fills of `limited` timelines. */
  backfilledEvents: number;
};

/** What the receiver's decryption counts since it was created (`decryption()`). */
export type MatrixDecryptionCounters = {
  /** `m.room.encrypted` events decrypted before they were handed over. */
  decrypted: number;
  /** Encrypted events that had to wait for a late room key (each counted once). */
  waitedForKeys: number;
  /** Encrypted events handed over undecryptable (dead-lettered, `HERALD_MATRIX_UNDECRYPTABLE`). */
  undecryptable: number;
};

/** The `/sync` receiver: a `ChannelReceiver` with its counters. */
export type MatrixSyncReceiver = ChannelReceiver & {
  /** A snapshot of the counters. */
  counters(): MatrixSyncCounters;
  /** A snapshot of the decryption counters (all 0 without `encryption`). */
  decryption(): MatrixDecryptionCounters;
};

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
  /** Redacted from every logged failure (the access token). @defaultValue [] */
  secrets?: readonly string[];
  /** Epoch-ms clock of the health timestamps. @defaultValue Date.now */
  clock?: () => number;
  /** Waits between failed `/sync` calls, in ms (tests record the waits). @defaultValue the SDK's `sleep` */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The account's encryption engine (`encryption` configured); absent: encrypted rooms are refused. */
  e2ee?: E2eeRef | undefined;
  /** How long an event waits for its room key, in ms (`encryption.decryptWaitMs`). @defaultValue 60_000 */
  decryptWaitMs?: number;
};

/**
 * Creates the `/sync` receiver. `start()` resolves once the cursor is loaded; syncing continues
 * in the background until `stop()`.
 */
export function createSyncReceiver(options: SyncReceiverOptions): MatrixSyncReceiver {
  const { http, sink, config, rooms } = options;
  const classify = (error: unknown) => classifyError(error, options.secrets ?? []);
  const log = sink.logger;
  const health = receiverHealth(options.clock);
  const memberCounts = new Map<string, number>();
  const warnedEncrypted = new Set<string>();
  const invitesSeen = new Set<string>();
  const counters: MatrixSyncCounters = { gapsUnfilled: 0, backfilledEvents: 0 };
  const filter = JSON.stringify({ room: { timeline: { limit: config.timelineLimit } } });
  let controller: AbortController | undefined;
  let loop: Promise<void> | undefined;
  const redelivery = createRedelivery({
    sink,
    logger: log,
    baseDelayMs: config.retryDelayMs,
  });
  const hydrator = createHydrator({
    e2ee: options.e2ee,
    selfId: options.userId,
    waitMs: options.decryptWaitMs ?? 60_000,
    logger: log,
    ...(options.clock ? { clock: options.clock } : {}),
  });

  /** Marks `roomId` when `events` turn encryption on; returns the `m.room.encryption` content. */
  const markEncryption = (roomId: string, events: readonly unknown[]) => {
    const state = events.findLast((e) => eventTypeOf(e) === "m.room.encryption") as
      | { content?: Record<string, unknown> }
      | undefined;
    if (!state) return undefined;
    rooms.markEncrypted(roomId);
    const content =
      state.content !== null && typeof state.content === "object" ? state.content : {};
    if (warnedEncrypted.has(roomId)) return content;
    warnedEncrypted.add(roomId);
    if (options.e2ee) {
      log.info({ roomId }, "matrix: room is end-to-end encrypted: its events are decrypted");
      return content;
    }
    log.error(
      { roomId, code: "HERALD_MATRIX_ENCRYPTED" },
      "matrix: room is end-to-end encrypted and this account has no encryption config: its messages are dead-lettered and sends to it fail",
    );
    return content;
  };

  /** Logs and counts a gap of `roomId` that stays (partly) unfilled: never silent (C38). */
  const unfilled = (
    gap: { roomId: string; from: string | undefined; to: string },
    why: string,
    extra: Record<string, unknown> = {},
  ) => {
    counters.gapsUnfilled += 1;
    log.error(
      { ...gap, ...extra, code: "HERALD_MATRIX_GAP_UNFILLED", gapsUnfilled: counters.gapsUnfilled },
      `matrix: a limited timeline's gap was not filled: ${why}`,
    );
  };

  /**
   * Events of a gap, oldest first: `/messages` backwards from `from` down to `to`, page by page
   * while the server gives an `end` — an empty page with an `end` is not the end (C38) — up to
   * `backfillMaxPages` (beyond that the gap is logged and counted as unfilled).
   */
  const backfill = async (
    roomId: string,
    from: string,
    to: string,
    signal: AbortSignal,
  ): Promise<unknown[]> => {
    const newestFirst: unknown[] = [];
    const result = await pageBack(
      http,
      roomId,
      { from, to, limit: config.backfillPageSize, maxPages: config.backfillMaxPages, signal },
      (events) => {
        newestFirst.push(...events);
        return false;
      },
    );
    if (!result.reachedEnd) {
      unfilled(
        { roomId, from, to },
        `more than backfillMaxPages (${config.backfillMaxPages}) pages: older events of the gap were not fetched`,
        { fetched: newestFirst.length, pages: result.pages, next: result.next },
      );
    }
    return newestFirst.reverse();
  };

  /**
   * {@link backfill}, except that a refusal (403, 404, a bad token…) is logged and counted as
   * an unfilled gap: asking the same `/sync` again would get the same refusal and stall every
   * room. Transient failures (5xx, network, 429) are thrown: the `/sync` is asked again.
   */
  const backfillOrSkip = async (
    roomId: string,
    from: string,
    to: string,
    signal: AbortSignal,
  ): Promise<unknown[]> => {
    try {
      return await backfill(roomId, from, to, signal);
    } catch (error) {
      const failure = classify(error);
      if (signal.aborted || REFETCH_KINDS.has(failure.kind)) throw error;
      unfilled(
        { roomId, from, to },
        "back-filling was refused: the gap's events were not fetched",
        {
          err: failure.message,
          kind: failure.kind,
        },
      );
      return [];
    }
  };

  const handleInvites = async (invite: Record<string, SyncInvite>, signal: AbortSignal) => {
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
          { roomId, err: classify(error).message },
          "matrix: joining an invited room failed",
        );
      }
    }
  };

  async function run(tracker: CursorTracker, signal: AbortSignal): Promise<void> {
    let since = tracker.safe();
    let delayMs = config.retryDelayMs;
    const wait = options.sleep ?? sleep;
    const pause = (ms: number) => wait(ms, signal).catch(() => {});
    while (!signal.aborted) {
      let answer: ParsedSync;
      const inbound: unknown[] = [];
      try {
        const raw = await http.request<unknown>("GET", "/sync", "GET /sync", {
          query: {
            since,
            filter,
            timeout: String(since === undefined ? 0 : config.pollTimeoutMs),
          },
          signal,
          timeoutMs: config.pollTimeoutMs + options.requestTimeoutMs,
        });
        answer = parseSyncAnswer(raw);
        const encryption: Array<{ roomId: string; content: Record<string, unknown> }> = [];
        const memberships: Array<{ roomId: string; userId: string; membership: string }> = [];
        for (const fragment of answer.malformed) {
          log.error(
            { path: fragment.sync_path, problem: fragment.problem },
            "matrix: a /sync answer had a malformed part: dead-lettered, the rest of the batch goes on",
          );
          inbound.push(fragment);
        }
        for (const room of answer.rooms) {
          const { roomId } = room;
          if (room.memberCount !== undefined) memberCounts.set(roomId, room.memberCount);
          const timeline = room.events;
          const turnedOn = markEncryption(roomId, [...room.state, ...timeline]);
          if (turnedOn) encryption.push({ roomId, content: turnedOn });
          memberships.push(...membershipsOf(roomId, timeline));
          let events = timeline;
          if (room.limited && since !== undefined) {
            const gap = room.prevBatch
              ? await backfillOrSkip(roomId, room.prevBatch, since, signal)
              : [];
            if (!room.prevBatch) {
              unfilled(
                { roomId, from: undefined, to: since },
                "the limited timeline came without prev_batch",
              );
            }
            counters.backfilledEvents += gap.length;
            const known = new Set(timeline.map(eventIdOf).filter((id) => id !== undefined));
            events = [...gap.filter((e) => !known.has(eventIdOf(e) ?? "")), ...timeline];
            log.info({ roomId, backfilled: gap.length }, "matrix: back-filled a limited timeline");
          }
          const joined = memberCounts.get(roomId);
          if (since === undefined) {
            // An initial sync's membership events are the room's history, not news.
            const history = events.filter((e) => eventTypeOf(e) === "m.room.member").length;
            if (history > 0) {
              log.info(
                { roomId, skipped: history },
                "matrix: initial sync: membership history not handed over",
              );
              events = events.filter((e) => eventTypeOf(e) !== "m.room.member");
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
        if (options.e2ee) {
          // Room keys first, saved, before the batch is handed over and before the next /sync
          // acknowledges the to-device events. A failure asks the same /sync again.
          await (await options.e2ee()).processSync(cryptoPartsOf(raw), encryption, memberships);
        }
      } catch (error) {
        if (signal.aborted) break;
        const failure = classify(error);
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
        // A rate limit's own wait wins over a shorter backoff (M_LIMIT_EXCEEDED on any status).
        const waitMs = Math.max(delayMs, failure.retryAfterMs ?? 0);
        log.warn({ err: failure.message, waitMs }, "matrix: /sync failed; retrying");
        await pause(waitMs);
        delayMs = Math.min(delayMs * 2, MAX_RETRY_DELAY_MS);
        continue;
      }
      delayMs = config.retryDelayMs;
      health.set("up");
      // Every event of the batch is added before any completes: none can be passed over.
      const batch = tracker.batch(answer.nextBatch);
      const items = inbound.map((raw) => ({ raw, item: batch.item() }));
      for (const { raw, item } of items) {
        // Decrypted first (in room order; late keys are waited for without holding the loop).
        void hydrator.hydrate(raw, signal).then((ready) => {
          if (ready === ABANDONED) return;
          void redelivery.deliver(ready, {}, (ack) => {
            item.track(ack).catch((error: unknown) => {
              log.warn({ err: error }, "matrix: sync cursor not written");
            });
          });
        });
      }
      batch.seal().catch((error: unknown) => {
        log.warn({ err: error }, "matrix: sync cursor not written");
      });
      since = answer.nextBatch;
      await handleInvites(answer.invites, signal);
    }
  }

  return {
    health: health.get,
    counters: () => ({ ...counters }),
    decryption: () => {
      const h = hydrator.counters();
      return { decrypted: h.decrypted, waitedForKeys: h.waited, undecryptable: h.undecryptable };
    },
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
