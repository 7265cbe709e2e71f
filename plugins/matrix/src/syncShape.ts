/**
 * The shape of a `/sync` answer, checked before the receiver touches it. A homeserver (or a
 * proxy in front of it) can answer anything; one malformed room or event must neither stop the
 * sync loop nor take the batch's good events down with it:
 * - no usable `next_batch` → {@link ReceiveValidationError} at `next_batch` (the receiver logs it
 *   and asks the same `/sync` again: without a token the position cannot move);
 * - a malformed `rooms`, joined room or invited room → one fragment `{ sync_path, value }` handed
 *   to herald, which dead-letters it with the field path (see `receive.ts`), and the rest of the
 *   batch goes on;
 * - a malformed timeline event → handed over as it is, dead-lettered by `normalize` with its
 *   field path (`event.event_id`…).
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#get_matrixclientv3sync
 *
 * @module
 */
import { ReceiveValidationError, z } from "@herald/plugin-sdk/channel-message";
import { MATRIX_CHANNEL_ID } from "./account.ts";

/** A piece of a `/sync` answer that had the wrong shape, as handed to herald to dead-letter. */
export type SyncFragment = {
  /** Where it sits in the `/sync` answer, e.g. `rooms.join.!r:hs.timeline.events`. */
  sync_path: string;
  /** The first problem inside it. */
  problem: string;
  /** The piece as received. */
  value: unknown;
};

/** A fragment's schema (what `normalize` recognizes). */
export const syncFragmentSchema = z.object({
  sync_path: z.string(),
  problem: z.string(),
  value: z.unknown(),
});

const joinedRoomSchema = z.object({
  timeline: z
    .object({
      events: z.array(z.unknown()).optional(),
      limited: z.boolean().optional(),
      prev_batch: z.string().optional(),
    })
    .optional(),
  state: z.object({ events: z.array(z.unknown()).optional() }).optional(),
  summary: z.object({ "m.joined_member_count": z.number().optional() }).optional(),
});

const invitedRoomSchema = z.object({
  invite_state: z
    .object({
      events: z.array(
        z.object({
          type: z.string().optional(),
          state_key: z.string().optional(),
          sender: z.string().optional(),
        }),
      ),
    })
    .optional(),
});

const roomsSchema = z
  .object({
    join: z.record(z.string(), z.unknown()).optional(),
    invite: z.record(z.string(), z.unknown()).optional(),
  })
  .optional();

/** One joined room of a batch. */
export type SyncRoom = {
  roomId: string;
  /** Timeline entries as received (objects or not: `normalize` checks each). */
  events: unknown[];
  state: unknown[];
  limited: boolean;
  prevBatch: string | undefined;
  memberCount: number | undefined;
};

/** An invited room of a batch. */
export type SyncInvite = z.infer<typeof invitedRoomSchema>;

/** A `/sync` answer after the shape check. */
export type ParsedSync = {
  nextBatch: string;
  rooms: SyncRoom[];
  invites: Record<string, SyncInvite>;
  /** Pieces with the wrong shape, to dead-letter. */
  malformed: SyncFragment[];
};

const firstIssue = (error: z.ZodError): { path: string; message: string } => {
  const issue = error.issues[0];
  return {
    path: issue ? issue.path.map(String).join(".") : "",
    message: issue?.message ?? "invalid",
  };
};

const join = (...parts: string[]) => parts.filter((p) => p !== "").join(".");

/**
 * Checks a `/sync` answer.
 * @throws ReceiveValidationError (path `next_batch`) when the answer has no usable `next_batch`.
 */
export function parseSyncAnswer(answer: unknown): ParsedSync {
  const top = (answer && typeof answer === "object" ? answer : {}) as Record<string, unknown>;
  if (typeof top.next_batch !== "string" || top.next_batch === "") {
    throw new ReceiveValidationError(MATRIX_CHANNEL_ID, [
      {
        path: "next_batch",
        message: `expected a non-empty string, got ${typeName(top.next_batch)}`,
      },
    ]);
  }
  const out: ParsedSync = {
    nextBatch: top.next_batch,
    rooms: [],
    invites: Object.create(null) as Record<string, SyncInvite>,
    malformed: [],
  };
  const rooms = roomsSchema.safeParse(top.rooms);
  if (!rooms.success) {
    const issue = firstIssue(rooms.error);
    out.malformed.push({
      sync_path: join("rooms", issue.path),
      problem: issue.message,
      value: top.rooms,
    });
    return out;
  }
  // Room ids are the homeserver's JSON keys: read them from the answer itself (own keys after
  // `JSON.parse`), not from zod's copy, where a room id "__proto__" would become a prototype and
  // vanish (C49).
  const given = (top.rooms ?? {}) as {
    join?: Record<string, unknown>;
    invite?: Record<string, unknown>;
  };
  for (const [roomId, raw] of Object.entries(rooms.data?.join ? (given.join ?? {}) : {})) {
    const room = joinedRoomSchema.safeParse(raw);
    if (!room.success) {
      const issue = firstIssue(room.error);
      out.malformed.push({
        sync_path: join("rooms.join", roomId, issue.path),
        problem: issue.message,
        value: raw,
      });
      continue;
    }
    const { timeline, state, summary } = room.data;
    out.rooms.push({
      roomId,
      events: timeline?.events ?? [],
      state: state?.events ?? [],
      limited: timeline?.limited === true,
      prevBatch: timeline?.prev_batch,
      memberCount: summary?.["m.joined_member_count"],
    });
  }
  for (const [roomId, raw] of Object.entries(rooms.data?.invite ? (given.invite ?? {}) : {})) {
    const room = invitedRoomSchema.safeParse(raw);
    if (!room.success) {
      const issue = firstIssue(room.error);
      out.malformed.push({
        sync_path: join("rooms.invite", roomId, issue.path),
        problem: issue.message,
        value: raw,
      });
      continue;
    }
    out.invites[roomId] = room.data;
  }
  return out;
}

/** The `type` of a timeline or state entry, when it is an object with a string type. */
export function eventTypeOf(entry: unknown): string | undefined {
  const type = (entry as { type?: unknown } | null)?.type;
  return typeof type === "string" ? type : undefined;
}

/** The `event_id` of an entry, when it has a string one. */
export function eventIdOf(entry: unknown): string | undefined {
  const id = (entry as { event_id?: unknown } | null)?.event_id;
  return typeof id === "string" ? id : undefined;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}
