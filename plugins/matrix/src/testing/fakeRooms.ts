/**
 * The room state of the fake homeserver: rooms with members, encryption and a timeline of
 * events, the transaction-id table (per user and device, with a server kind's retention:
 * `fakeTransactions.ts`), and what
 * the rooms show — edits applied by the spec's ordering (the newest valid `m.replace` by
 * `origin_server_ts`, then the larger event id), redactions hidden.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { type FakeServerKind, FakeTransactions } from "./fakeTransactions.ts";
import type { FakeEvent, FakeRoom, FakeRoomsView } from "./fakeTypes.ts";

/** One visible edit of a message, oldest first. */
type Version = { body: string; ts: number; eventId: string };

/** Options of {@link FakeRooms}. */
export type FakeRoomsOptions = {
  /** @defaultValue Date.now */
  clock?: () => number;
  /** Whose txnId retention the fake has. @defaultValue "synapse" */
  kind?: FakeServerKind;
  /** Overrides the kind's txnId TTL, in ms. */
  txnTtlMs?: number;
};

/** Rooms, events and transaction ids of the fake homeserver. */
export class FakeRooms implements FakeRoomsView {
  readonly rooms = new Map<string, FakeRoom>();
  /** Every event, in stream order. */
  readonly events: FakeEvent[] = [];
  /** Events handed over again at a later stream position (a platform redelivery). */
  readonly redeliveries: Array<{ stream: number; event: FakeEvent }> = [];
  /** The transaction-id table (its `retention` is switchable). */
  readonly transactions: FakeTransactions;
  /** Event ids handed out next, before random ones (tests that need an ordering). */
  readonly nextEventIds: string[] = [];
  /** `origin_server_ts` values stamped next, before the clock (C33's equal timestamps). */
  readonly nextTimestamps: number[] = [];
  readonly #clock: () => number;
  #stream = 0;
  #roomCount = 0;
  readonly #listeners = new Set<(event: FakeEvent | undefined) => void>();

  constructor(options: FakeRoomsOptions = {}) {
    this.#clock = options.clock ?? Date.now;
    this.transactions = new FakeTransactions(options.kind ?? "synapse", this.#clock);
    if (options.txnTtlMs !== undefined) this.txnTtlMs = options.txnTtlMs;
  }

  /** The txnId TTL in ms (switchable: 0 forgets every key). */
  get txnTtlMs(): number {
    return this.transactions.retention.ttlMs;
  }

  set txnTtlMs(ms: number) {
    this.transactions.retention.ttlMs = ms;
  }

  /** The current stream position (the newest event's). */
  get position(): number {
    return this.#stream;
  }

  /** Creates a room with `members` joined. */
  createRoom(input: { name?: string; members: string[]; encrypted?: boolean; direct?: boolean }) {
    this.#roomCount += 1;
    const room: FakeRoom = {
      id: `!room${this.#roomCount}${randomBytes(4).toString("hex")}:fake.test`,
      name: input.name ?? `room ${this.#roomCount}`,
      members: new Set(input.members),
      invited: new Map(),
      encrypted: input.encrypted ?? false,
      direct: input.direct ?? false,
    };
    this.rooms.set(room.id, room);
    for (const m of input.members) {
      this.append({
        room_id: room.id,
        type: "m.room.member",
        sender: m,
        state_key: m,
        content: { membership: "join" },
      });
    }
    if (room.encrypted) this.encrypt(room.id, input.members[0] ?? "@admin:fake.test");
    return room;
  }

  /** Turns on encryption in a room (an `m.room.encryption` state event). */
  encrypt(roomId: string, sender: string): void {
    const room = this.rooms.get(roomId);
    if (!room) throw new Error(`fake homeserver: no room ${roomId}`);
    room.encrypted = true;
    this.append({
      room_id: roomId,
      type: "m.room.encryption",
      sender,
      state_key: "",
      content: { algorithm: "m.megolm.v1.aes-sha2" },
    });
  }

  /** Invites `user` to a room. */
  invite(roomId: string, user: string, inviter: string): void {
    const room = this.rooms.get(roomId);
    if (!room) throw new Error(`fake homeserver: no room ${roomId}`);
    room.invited.set(user, inviter);
    this.append({
      room_id: roomId,
      type: "m.room.member",
      sender: inviter,
      state_key: user,
      content: { membership: "invite" },
    });
  }

  /** Joins `user` to a room (after an invite, or a public room). */
  join(roomId: string, user: string): void {
    const room = this.rooms.get(roomId);
    if (!room) throw new Error(`fake homeserver: no room ${roomId}`);
    room.invited.delete(user);
    if (room.members.has(user)) return;
    room.members.add(user);
    this.append({
      room_id: roomId,
      type: "m.room.member",
      sender: user,
      state_key: user,
      content: { membership: "join" },
    });
  }

  /** Appends an event to the timeline and returns it. */
  append(input: Omit<FakeEvent, "event_id" | "origin_server_ts" | "stream">): FakeEvent {
    const event: FakeEvent = {
      ...input,
      event_id: this.nextEventIds.shift() ?? `$${randomBytes(32).toString("base64url")}`,
      origin_server_ts: this.nextTimestamps.shift() ?? this.#clock(),
      stream: ++this.#stream,
    };
    this.events.push(event);
    if (event.type === "m.room.redaction" && event.redacts) {
      const target = this.get(event.redacts);
      if (target && !target.redactedBy) target.redactedBy = event.event_id;
    }
    for (const l of this.#listeners) l(event);
    return event;
  }

  /**
   * Delivers an event again: it shows up in `/sync` once more, at a new stream position (as
   * after a homeserver-side replay), with the same event id.
   */
  redeliver(eventId: string): void {
    const event = this.get(eventId);
    if (!event) throw new Error(`fake homeserver: no event ${eventId}`);
    this.redeliveries.push({ stream: ++this.#stream, event });
    for (const l of this.#listeners) l(event);
  }

  /** Timeline entries after a stream position, redeliveries included, in stream order. */
  entriesAfter(position: number | undefined): Array<{ stream: number; event: FakeEvent }> {
    const all = [
      ...this.events.map((event) => ({ stream: event.stream, event })),
      ...this.redeliveries,
    ].filter((e) => position === undefined || e.stream > position);
    return all.sort((a, b) => a.stream - b.stream);
  }

  /**
   * Advances the stream without a timeline event (a to-device message, a device-key change) and
   * wakes the long polls. @returns the new position.
   */
  tick(): number {
    const stream = ++this.#stream;
    for (const l of this.#listeners) l(undefined);
    return stream;
  }

  /** Subscribes to new events (`undefined`: the stream moved without one). @returns an unsubscribe function. */
  subscribe(listener: (event: FakeEvent | undefined) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** One event by id. */
  get(eventId: string): FakeEvent | undefined {
    return this.events.find((e) => e.event_id === eventId);
  }

  /**
   * The event a transaction id already made for this user and device and path, while the
   * server kind remembers it; or records `make()`'s event under it. Errors are never cached (a 429 can
   * be retried with the same txnId).
   */
  transaction(
    key: { user: string; device: string; path: string },
    make: () => FakeEvent,
  ): { event: FakeEvent; replayed: boolean } {
    const id = JSON.stringify([key.user, key.device, key.path]);
    const known = this.transactions.get(id);
    const replayed = known === undefined ? undefined : this.get(known);
    if (replayed) return { event: replayed, replayed: true };
    const event = make();
    this.transactions.set(id, event.event_id);
    return { event, replayed: false };
  }

  /** Whether a transaction id is known (within the window) for this user, device and path. */
  knownTransaction(key: { user: string; device: string; path: string }): boolean {
    return this.transactions.get(JSON.stringify([key.user, key.device, key.path])) !== undefined;
  }

  /** Forgets every transaction id now (the retention has passed). */
  expireTransactions(): void {
    this.transactions.clear();
  }

  /** The valid `m.replace` edits of `original`, in the spec's order (oldest first). */
  editsOf(original: FakeEvent): FakeEvent[] {
    return this.events
      .filter((e) => {
        const rel = e.content["m.relates_to"] as
          | { rel_type?: string; event_id?: string }
          | undefined;
        return (
          e.room_id === original.room_id &&
          e.type === original.type &&
          e.sender === original.sender &&
          !e.redactedBy &&
          rel?.rel_type === "m.replace" &&
          rel.event_id === original.event_id &&
          typeof e.content["m.new_content"] === "object"
        );
      })
      .sort((a, b) =>
        a.origin_server_ts !== b.origin_server_ts
          ? a.origin_server_ts - b.origin_server_ts
          : a.event_id < b.event_id
            ? -1
            : a.event_id > b.event_id
              ? 1
              : 0,
      );
  }

  /** The newest valid edit of `original` (what clients show), if any. */
  latestEdit(original: FakeEvent): FakeEvent | undefined {
    return this.editsOf(original).at(-1);
  }

  /** The content a message shows now: its newest valid edit's `m.new_content`, else its own. */
  shownContent(original: FakeEvent): Record<string, unknown> {
    const edit = this.latestEdit(original);
    return (edit?.content["m.new_content"] as Record<string, unknown>) ?? original.content;
  }

  /** The body versions of a message, oldest first (the original, then each edit in order). */
  versions(original: FakeEvent): Version[] {
    const v: Version[] = [
      {
        body: String(original.content.body ?? ""),
        ts: original.origin_server_ts,
        eventId: original.event_id,
      },
    ];
    for (const e of this.editsOf(original)) {
      const nc = e.content["m.new_content"] as { body?: unknown };
      v.push({ body: String(nc.body ?? ""), ts: e.origin_server_ts, eventId: e.event_id });
    }
    return v;
  }

  /** Messages (not edits, not redacted) of a room, in timeline order. */
  messagesOf(roomId: string): FakeEvent[] {
    return this.events.filter(
      (e) =>
        e.room_id === roomId &&
        e.type === "m.room.message" &&
        !e.redactedBy &&
        (e.content["m.relates_to"] as { rel_type?: string } | undefined)?.rel_type !== "m.replace",
    );
  }
}

/** The thread root of a message (`m.relates_to.rel_type: m.thread`), if in a thread. */
export function threadOf(event: FakeEvent): string | undefined {
  const rel = event.content["m.relates_to"] as { rel_type?: string; event_id?: string } | undefined;
  return rel?.rel_type === "m.thread" ? rel.event_id : undefined;
}

/** The event a message replies to (`m.in_reply_to`), unless it is only a thread's fallback. */
export function replyOf(event: FakeEvent): string | undefined {
  const rel = event.content["m.relates_to"] as
    | { is_falling_back?: boolean; "m.in_reply_to"?: { event_id?: string } }
    | undefined;
  if (!rel || rel.is_falling_back) return undefined;
  return rel["m.in_reply_to"]?.event_id;
}
