/**
 * The data types of the fake homeserver (users, rooms, events), and
 * {@link FakeHomeserverCore}: the part of a `FakeHomeserver` its route modules (`fakeRoutes.ts`,
 * `fakeSync.ts`) use. They take this interface, not the class, so no module of the fake imports
 * `FakeHomeserver.ts` back; this module imports nothing of the fake.
 *
 * @module
 */
import type { FakePlatformServer } from "@herald/plugin-sdk/testing";
import type { FakeKeys } from "./fakeKeys.ts";

/** A user account of the fake, with one device's access token. */
export type FakeMatrixUser = {
  userId: string;
  password: string;
  accessToken: string;
  deviceId: string;
  /** Shown as a bot in visible state. */
  bot: boolean;
};

/** One event as the fake stores it (client-server format). */
export type FakeEvent = {
  event_id: string;
  room_id: string;
  type: string;
  sender: string;
  origin_server_ts: number;
  content: Record<string, unknown>;
  /** `m.room.redaction`: the event it redacts. */
  redacts?: string;
  /** State events. */
  state_key?: string;
  /** Only the sending device sees it (`unsigned.transaction_id`). */
  txn?: { deviceId: string; txnId: string };
  /** Redacted by a later event. */
  redactedBy?: string;
  /** Position in the homeserver's stream (sync tokens count these). */
  stream: number;
};

/** A room of the fake. */
export type FakeRoom = {
  id: string;
  name: string;
  /** Joined users. */
  members: Set<string>;
  /** Invited users, with the inviter. */
  invited: Map<string, string>;
  encrypted: boolean;
  direct: boolean;
};

/** A fault applied after the call was stored: the answer the client sees instead (C30). */
export type AfterApplyFault = { status: number; body: string; contentType: string };

/** What the route modules use of `FakeRooms` (which implements it); see there for each member. */
export interface FakeRoomsView {
  readonly rooms: Map<string, FakeRoom>;
  readonly events: FakeEvent[];
  readonly position: number;
  get(eventId: string): FakeEvent | undefined;
  append(input: Omit<FakeEvent, "event_id" | "origin_server_ts" | "stream">): FakeEvent;
  join(roomId: string, user: string): void;
  entriesAfter(position: number | undefined): Array<{ stream: number; event: FakeEvent }>;
  subscribe(listener: (event: FakeEvent | undefined) => void): () => void;
  /** Advances the stream without a timeline event; returns the new position. */
  tick(): number;
  /** `key`: the user, their device and the request path. */
  knownTransaction(key: { user: string; device: string; path: string }): boolean;
  transaction(
    key: { user: string; device: string; path: string },
    make: () => FakeEvent,
  ): { event: FakeEvent; replayed: boolean };
}

/**
 * What the route modules use of a `FakeHomeserver` (which implements it): its server, rooms and
 * accounts, the typing and after-apply tables, and the client view of an event. See
 * `FakeHomeserver` for each member.
 */
export interface FakeHomeserverCore {
  readonly server: FakePlatformServer;
  readonly rooms: FakeRoomsView;
  readonly users: readonly FakeMatrixUser[];
  readonly afterApply: AfterApplyFault[];
  /** Device keys, one-time keys and to-device messages (`fakeKeys.ts`). */
  readonly keys: FakeKeys;
  readonly typing: Map<string, number>;
  readonly pendingPolls: Set<() => void>;
  readonly defaultTimelineLimit: number;
  userOfToken(token: string | undefined): FakeMatrixUser | undefined;
  clientEvent(event: FakeEvent, viewer?: FakeMatrixUser): Record<string, unknown>;
  hiddenFrom(viewer: FakeMatrixUser, event: FakeEvent): boolean;
}
