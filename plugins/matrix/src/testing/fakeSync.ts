/**
 * `/sync`, `/messages` and `/join` of the fake homeserver. Sync tokens are `s<stream position>`;
 * a timeline with more new events than the filter's `room.timeline.limit` comes back
 * `limited: true` with only the newest ones and a `prev_batch` to page back with `/messages` —
 * the gap a client must back-fill (CASES C31). Long polls wait for a new event up to `timeout`.
 *
 * `/messages` applies a `RoomEventFilter` (`senders`, `not_senders`, `types`, `not_types`) while
 * selecting the page, as Synapse does in SQL, and then drops what the viewer may not see (events
 * of ignored users) from the page it fetched, as Synapse's `filter_events_for_client` does: such
 * a page is `chunk: []` **with** an `end` when older events exist (C38;
 * `synapse/handlers/pagination.py`, "if not events: return chunk [] with end").
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#get_matrixclientv3sync,
 * https://spec.matrix.org/latest/client-server-api/#get_matrixclientv3roomsroomidmessages
 *
 * @module
 */
import type { FakeEvent, FakeHomeserverCore, FakeMatrixUser } from "./fakeTypes.ts";

const tokenOf = (position: number) => `s${position}`;

function positionOf(token: string | undefined): number | undefined {
  if (token === undefined || token === "") return undefined;
  const m = /^s(\d+)$/.exec(token);
  return m ? Number(m[1]) : Number.NaN;
}

function timelineLimitOf(filter: string | undefined, fallback: number): number {
  if (!filter) return fallback;
  try {
    const parsed = JSON.parse(filter) as { room?: { timeline?: { limit?: number } } };
    return parsed.room?.timeline?.limit ?? fallback;
  } catch {
    return fallback;
  }
}

/** The part of a `RoomEventFilter` the fake applies to `/messages`. */
type RoomEventFilter = {
  senders?: string[];
  not_senders?: string[];
  types?: string[];
  not_types?: string[];
};

function roomFilterOf(filter: string | undefined): (e: FakeEvent) => boolean {
  if (!filter) return () => true;
  let f: RoomEventFilter;
  try {
    f = JSON.parse(filter) as RoomEventFilter;
  } catch {
    return () => true;
  }
  return (e) =>
    (f.senders === undefined || f.senders.includes(e.sender)) &&
    !(f.not_senders ?? []).includes(e.sender) &&
    (f.types === undefined || f.types.includes(e.type)) &&
    !(f.not_types ?? []).includes(e.type);
}

/** Registers `/sync`, `/messages` and the join endpoints on `fake`. */
export function registerSync(fake: FakeHomeserverCore): void {
  const s = fake.server;
  const v3 = "/_matrix/client/v3";
  const userOf = (header: string | undefined) =>
    fake.userOfToken(header?.replace(/^Bearer\s+/i, ""));
  const unknownToken = () =>
    s.error({ status: 401, code: "M_UNKNOWN_TOKEN", description: "Invalid access token passed." });

  s.route("GET", `${v3}/sync`, "sync", async (c) => {
    const user = userOf(c.req.header("authorization"));
    if (!user) return unknownToken();
    const since = positionOf(c.req.query("since"));
    if (Number.isNaN(since)) {
      return s.error({ status: 400, code: "M_UNKNOWN", description: "unknown sync token" });
    }
    const limit = timelineLimitOf(c.req.query("filter"), fake.defaultTimelineLimit);
    const timeoutMs = Number(c.req.query("timeout") ?? 0);
    if (since !== undefined && timeoutMs > 0 && !hasNews(fake, user, since)) {
      await waitForNews(fake, user, since, Math.min(timeoutMs, 60_000));
    }
    return c.json(syncResponse(fake, user, since, limit));
  });

  s.route("GET", `${v3}/rooms/:roomId/messages`, "messages", (c) => {
    const user = userOf(c.req.header("authorization"));
    if (!user) return unknownToken();
    const room = fake.rooms.rooms.get(c.req.param("roomId") as string);
    if (!room) return s.error({ status: 404, code: "M_NOT_FOUND", description: "room" });
    if (!room.members.has(user.userId))
      return s.error({ status: 403, code: "M_FORBIDDEN", description: "not in room" });
    const from = positionOf(c.req.query("from")) ?? fake.rooms.position;
    const to = positionOf(c.req.query("to"));
    const dir = c.req.query("dir") === "f" ? "f" : "b";
    const limit = Math.max(1, Math.min(1_000, Number(c.req.query("limit") ?? 10)));
    const selected = roomFilterOf(c.req.query("filter"));
    const inRoom = fake.rooms.events.filter((e) => e.room_id === room.id && selected(e));
    let page: FakeEvent[];
    let end: number | undefined;
    if (dir === "b") {
      const older = inRoom.filter(
        (e) => e.stream <= (from as number) && (to === undefined || e.stream > to),
      );
      page = older.slice(-limit).reverse();
      const last = page.at(-1);
      end = older.length > limit && last ? last.stream - 1 : undefined;
    } else {
      const newer = inRoom.filter(
        (e) => e.stream > (from as number) && (to === undefined || e.stream <= to),
      );
      page = newer.slice(0, limit);
      const last = page.at(-1);
      end = newer.length > limit && last ? last.stream : undefined;
    }
    return c.json({
      start: tokenOf(from as number),
      ...(end !== undefined ? { end: tokenOf(end) } : {}),
      // Filtered after the page was fetched (Synapse): a page may be empty while `end` is set.
      chunk: page.filter((e) => !fake.hiddenFrom(user, e)).map((e) => fake.clientEvent(e, user)),
    });
  });

  const join = (c: {
    req: { header(n: string): string | undefined; param(n: string): string };
    json(b: unknown): Response;
  }) => {
    const user = userOf(c.req.header("authorization"));
    if (!user) return unknownToken();
    const roomId = c.req.param("roomId") as string;
    const room = fake.rooms.rooms.get(roomId);
    if (!room) return s.error({ status: 404, code: "M_NOT_FOUND", description: "room" });
    if (!room.members.has(user.userId) && !room.invited.has(user.userId)) {
      return s.error({ status: 403, code: "M_FORBIDDEN", description: "not invited" });
    }
    fake.rooms.join(roomId, user.userId);
    return c.json({ room_id: roomId });
  };
  s.route("POST", `${v3}/rooms/:roomId/join`, "join", join);
  s.route("POST", `${v3}/join/:roomId`, "join", join);
}

function visibleTo(fake: FakeHomeserverCore, user: FakeMatrixUser, e: FakeEvent): boolean {
  const room = fake.rooms.rooms.get(e.room_id);
  return room?.members.has(user.userId) ?? false;
}

function hasNews(fake: FakeHomeserverCore, user: FakeMatrixUser, since: number): boolean {
  if (fake.keys.hasNews(fake, user, since)) return true;
  return fake.rooms
    .entriesAfter(since)
    .some(
      ({ event: e }) =>
        visibleTo(fake, user, e) || (e.type === "m.room.member" && e.state_key === user.userId),
    );
}

function waitForNews(
  fake: FakeHomeserverCore,
  user: FakeMatrixUser,
  since: number,
  timeoutMs: number,
): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      unsubscribe();
      fake.pendingPolls.delete(done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    const unsubscribe = fake.rooms.subscribe(() => {
      if (hasNews(fake, user, since)) done();
    });
    fake.pendingPolls.add(done);
  });
}

/** The `/sync` answer for `user` since a position (undefined: an initial sync). */
function syncResponse(
  fake: FakeHomeserverCore,
  user: FakeMatrixUser,
  since: number | undefined,
  limit: number,
): Record<string, unknown> {
  const join: Record<string, unknown> = {};
  const invite: Record<string, unknown> = {};
  for (const room of fake.rooms.rooms.values()) {
    if (room.invited.has(user.userId) && !room.members.has(user.userId)) {
      const inviteEvent = fake.rooms.events.findLast(
        (e) => e.room_id === room.id && e.type === "m.room.member" && e.state_key === user.userId,
      );
      if (since === undefined || (inviteEvent && inviteEvent.stream > since)) {
        invite[room.id] = {
          invite_state: {
            events: [
              {
                type: "m.room.name",
                state_key: "",
                sender: room.invited.get(user.userId),
                content: { name: room.name },
              },
              ...(inviteEvent ? [fake.clientEvent(inviteEvent, user)] : []),
            ],
          },
        };
      }
      continue;
    }
    if (!room.members.has(user.userId)) continue;
    const fresh = fake.rooms
      .entriesAfter(since)
      .filter((e) => e.event.room_id === room.id && !fake.hiddenFrom(user, e.event));
    if (since !== undefined && fresh.length === 0) continue;
    const limited = fresh.length > limit;
    const timeline = fresh.slice(-limit);
    const first = timeline[0];
    const state =
      since === undefined && room.encrypted
        ? fake.rooms.events.filter((e) => e.room_id === room.id && e.type === "m.room.encryption")
        : [];
    join[room.id] = {
      timeline: {
        events: timeline.map((e) => fake.clientEvent(e.event, user)),
        limited,
        prev_batch: tokenOf(first ? first.stream - 1 : fake.rooms.position),
      },
      summary: { "m.joined_member_count": room.members.size },
      state: { events: state.map((e) => fake.clientEvent(e, user)) },
    };
  }
  return {
    next_batch: tokenOf(fake.rooms.position),
    rooms: { join, invite, leave: {} },
    ...fake.keys.syncParts(fake, user, since),
  };
}
