/**
 * A fake Matrix homeserver on 127.0.0.1 for tests: the Client-Server API endpoints herald uses,
 * on the SDK's `FakePlatformServer` (scripted faults in Matrix's wire format:
 * `{ errcode: "M_LIMIT_EXCEEDED", error, retry_after_ms }` plus `Retry-After`), with
 * - `GET /versions`, `POST /login` (password, with a `device_id`), `GET /account/whoami`;
 * - `PUT /rooms/{roomId}/send/{type}/{txnId}` with a real server's transaction semantics: the
 *   same txnId from the same user **and device** on the same path returns the first event (the
 *   body is ignored; errors are not cached) for as long as the server `kind` keeps it — Synapse
 *   24 h across restarts (the default), Dendrite 30–60 min in memory and nothing after
 *   {@link FakeHomeserver.restart}, Conduit forever (`fakeTransactions.ts`);
 * - `unsigned.transaction_id` on an event only when it is returned to the device that sent it
 *   (`/sync`, `/messages`, `/event`), as the spec says;
 * - events of users the viewer ignores filtered out **after** a `/messages` page was fetched, as
 *   Synapse does: a page can be `chunk: []` with an `end` (C38, {@link FakeHomeserver.ignoreUser});
 * - `PUT /rooms/{roomId}/redact/{eventId}/{txnId}` (same semantics), `GET /rooms/{roomId}/event/{eventId}`
 *   with the newest edit bundled (`unsigned.m.relations.m.replace`);
 * - membership (`M_FORBIDDEN` outside a room), the 65,536-byte event limit (`M_TOO_LARGE`),
 *   an optional per-user message rate limit (`M_LIMIT_EXCEEDED` with `retry_after_ms` and
 *   `Retry-After`, on 429 or — as some proxies and older servers answer — another status);
 * - `/sync` with `limited` timelines and `/messages` (see `fakeSync.ts`);
 * - what end-to-end encryption needs relayed — `/keys/upload`, `/keys/query`, `/keys/claim`,
 *   `/sendToDevice`, and `to_device`, `device_lists`, `device_one_time_keys_count` in `/sync`
 *   (`fakeKeys.ts`): opaque JSON here, the crypto happens only in the real clients.
 *
 * The routes are in `fakeRoutes.ts` and `fakeSync.ts`; this file holds the accounts, the rooms
 * (`fakeRooms.ts`) and what they show.
 *
 * Ops for fault targeting: `send`, `edit` (a `send` whose content is an `m.replace`), `delete`
 * (redact), `read` (event lookups), `state`, `typing`, `sync`, `messages`, `join`, `auth`, `keys` (key upload, query, claim and to-device sends).
 *
 * @module
 */
import {
  type FakeErrorAnswer,
  FakePlatformServer,
  type FaultTarget,
  type PlatformFault,
} from "@herald/plugin-sdk/testing";
import { registerDirect } from "./fakeDirect.ts";
import { FakeKeys, registerKeys } from "./fakeKeys.ts";
import { FakeMedia, registerMedia } from "./fakeMedia.ts";
import { FakeRooms, replyOf, threadOf } from "./fakeRooms.ts";
import { registerRoutes } from "./fakeRoutes.ts";
import { registerSync } from "./fakeSync.ts";
import type { FakeServerKind } from "./fakeTransactions.ts";
import type {
  AfterApplyFault,
  FakeEvent,
  FakeHomeserverCore,
  FakeMatrixUser,
  FakeRoom,
} from "./fakeTypes.ts";

export { type FakeServerKind, TXN_RETENTION, type TxnRetention } from "./fakeTransactions.ts";
export type { AfterApplyFault, FakeMatrixUser } from "./fakeTypes.ts";

/** The bot herald runs as in tests. */
export const FAKE_BOT: FakeMatrixUser = {
  userId: "@herald:fake.test",
  password: "bot-password",
  accessToken: "syt_aGVyYWxk_fakeAccessTokenForTests_0xQz9",
  deviceId: "HERALDDEV1",
  bot: true,
};
/** A person. */
export const ALICE: FakeMatrixUser = {
  userId: "@alice:fake.test",
  password: "alice-password",
  accessToken: "syt_YWxpY2U_aliceTokenForTests_7Yh2",
  deviceId: "ALICEPHONE",
  bot: false,
};
/** Another bot in the rooms (not herald's). */
export const OTHER_FAKE_BOT: FakeMatrixUser = {
  userId: "@otherbot:fake.test",
  password: "other-password",
  accessToken: "syt_b3RoZXI_otherBotTokenForTests_3kP1",
  deviceId: "OTHERBOT",
  bot: true,
};

/** A second herald bot account (the two-accounts contract test). */
export const SECOND_FAKE_BOT: FakeMatrixUser = {
  userId: "@herald2:fake.test",
  password: "second-password",
  accessToken: "syt_aGVyYWxkMg_secondBotTokenForTests_5Rt8",
  deviceId: "HERALDDEV2",
  bot: true,
};

/** Options of {@link FakeHomeserver}. */
export type FakeHomeserverOptions = {
  /** Accounts besides the defaults ({@link FAKE_BOT}, {@link ALICE}, {@link OTHER_FAKE_BOT}). */
  users?: FakeMatrixUser[];
  /** @defaultValue Date.now */
  clock?: () => number;
  /**
   * A per-user message rate limit: at most `limit` sends, edits and redactions per `windowMs`;
   * beyond it `429 M_LIMIT_EXCEEDED` with the wait. @defaultValue none
   */
  rateLimit?: { limit: number; windowMs: number };
  /** How the wait of a 429 is announced. @defaultValue "both" */
  retryAfterVia?: "header" | "body" | "both";
  /**
   * The HTTP status of the rate limit's `M_LIMIT_EXCEEDED`: 429 per the spec; some reverse
   * proxies and older servers answer it with 400 or 403 (PLATFORMS.md §9, C45). @defaultValue 429
   */
  rateLimitStatus?: number;
  /** Delay before every faultable call, in ms. @defaultValue 0 */
  latencyMs?: number;
  /** Whose transaction-id retention the fake has (`fakeTransactions.ts`). @defaultValue "synapse" */
  kind?: FakeServerKind;
};

const ERRCODE: Record<string, string> = {
  rate_limited: "M_LIMIT_EXCEEDED",
  forbidden: "M_FORBIDDEN",
  not_found: "M_NOT_FOUND",
  too_large: "M_TOO_LARGE",
  unauthorized: "M_UNKNOWN_TOKEN",
  bad_request: "M_BAD_JSON",
};

/** Renders a platform-neutral error answer as Matrix's standard error response. */
export function matrixErrorBody(answer: FakeErrorAnswer): unknown {
  const errcode = answer.code.startsWith("M_")
    ? answer.code
    : (ERRCODE[answer.code] ?? "M_UNKNOWN");
  return {
    errcode,
    error: answer.description,
    ...(answer.retryAfterMs !== undefined ? { retry_after_ms: answer.retryAfterMs } : {}),
  };
}

/** The fake homeserver. Start it with {@link FakeHomeserver.start}. */
export class FakeHomeserver implements FakeHomeserverCore {
  readonly server: FakePlatformServer;
  readonly rooms: FakeRooms;
  readonly users: FakeMatrixUser[];
  /** Answers for the next stored sends/edits/redactions, after they were stored (C30's proxy 502). */
  readonly afterApply: AfterApplyFault[] = [];
  /** Device keys, one-time keys and to-device messages relayed for encryption (`fakeKeys.ts`). */
  readonly keys = new FakeKeys();
  /** The content repository (uploads) ([H23], `fakeMedia.ts`). */
  readonly media = new FakeMedia();
  /** Account data by user and type (`m.direct`) ([H23], `fakeDirect.ts`). */
  readonly accountData = new Map<string, Record<string, unknown>>();
  readonly #clock: () => number;

  constructor(options: FakeHomeserverOptions = {}) {
    this.#clock = options.clock ?? Date.now;
    this.users = [FAKE_BOT, ALICE, OTHER_FAKE_BOT, SECOND_FAKE_BOT, ...(options.users ?? [])];
    this.rooms = new FakeRooms({
      clock: this.#clock,
      ...(options.kind !== undefined ? { kind: options.kind } : {}),
    });
    this.server = new FakePlatformServer({
      platform: "matrix",
      wire: { errorBody: matrixErrorBody },
      clock: this.#clock,
      ...(options.latencyMs !== undefined ? { latencyMs: options.latencyMs } : {}),
    });
    registerRoutes(this, this.#clock, options);
    registerSync(this);
    registerKeys(this);
    registerMedia(this, this.media);
    registerDirect(this, this.rooms, this.accountData);
  }

  /** Starts a fake homeserver on a free port. */
  static async start(options: FakeHomeserverOptions = {}): Promise<FakeHomeserver> {
    const fake = new FakeHomeserver(options);
    await fake.server.listen();
    return fake;
  }

  /** The homeserver base URL to give the client (no trailing slash). */
  get url(): string {
    return this.server.url;
  }

  /** Fault injection in platform-neutral terms. */
  get faults() {
    return this.server.faults;
  }

  /** Scripts a fault (shorthand for `faults.failNext`). */
  failNext(fault: PlatformFault, target?: FaultTarget): void {
    this.server.faults.failNext(fault, target);
  }

  /**
   * The homeserver restarts: what it keeps in memory is lost — a Dendrite's transaction ids —
   * while a Synapse's or Conduit's database keeps them. Rooms and events stay.
   */
  restart(): void {
    this.rooms.transactions.restart();
  }

  /** Users each viewer ignores (`m.ignored_user_list`): their events are not shown to the viewer. */
  readonly ignored = new Map<string, Set<string>>();

  /**
   * `viewer` ignores `sender`: the sender's events are left out of the viewer's `/sync` and
   * `/messages` — in `/messages` after the page was fetched, as Synapse's
   * `filter_events_for_client` does (`synapse/handlers/pagination.py`), so a page of only their
   * events comes back `chunk: []` with an `end` (C38).
   * Source: https://spec.matrix.org/latest/client-server-api/#ignoring-users
   */
  ignoreUser(viewer: string, sender: string): void {
    const set = this.ignored.get(viewer) ?? new Set<string>();
    set.add(sender);
    this.ignored.set(viewer, set);
  }

  /** True when `viewer` may not see `event` (its sender is ignored by the viewer). */
  hiddenFrom(viewer: FakeMatrixUser, event: FakeEvent): boolean {
    return this.ignored.get(viewer.userId)?.has(event.sender) ?? false;
  }

  /** The user an access token belongs to. */
  userOfToken(token: string | undefined): FakeMatrixUser | undefined {
    return this.users.find((u) => u.accessToken === token);
  }

  /**
   * Creates a room: a direct one with the bot and Alice, a group one with both herald bots,
   * Alice and another bot (unless `members` says).
   */
  createRoom(
    input: { name?: string; members?: string[]; encrypted?: boolean; direct?: boolean } = {},
  ): FakeRoom {
    const members =
      input.members ??
      (input.direct
        ? [FAKE_BOT.userId, ALICE.userId]
        : [FAKE_BOT.userId, ALICE.userId, OTHER_FAKE_BOT.userId, SECOND_FAKE_BOT.userId]);
    return this.rooms.createRoom({ ...input, members });
  }

  /**
   * Posts a message as `sender` (a person or another bot), as their client would.
   * @returns the stored event.
   */
  post(input: {
    room: string;
    sender: string;
    body: string;
    thread?: string;
    replyTo?: string;
    content?: Record<string, unknown>;
  }): FakeEvent {
    const user = this.users.find((u) => u.userId === input.sender);
    const relation = input.thread
      ? {
          rel_type: "m.thread",
          event_id: input.thread,
          is_falling_back: input.replyTo === undefined,
          "m.in_reply_to": { event_id: input.replyTo ?? input.thread },
        }
      : input.replyTo
        ? { "m.in_reply_to": { event_id: input.replyTo } }
        : undefined;
    return this.rooms.append({
      room_id: input.room,
      type: "m.room.message",
      sender: input.sender,
      content: {
        // Bots post notices (the spec's convention, and how herald tells a bot author).
        msgtype: user?.bot ? "m.notice" : "m.text",
        body: input.body,
        ...(relation ? { "m.relates_to": relation } : {}),
        ...input.content,
      },
    });
  }

  /** What a room shows: messages (edits applied, redacted ones gone), in timeline order. */
  visible(roomId: string, options: { thread?: string | null } = {}) {
    return this.rooms
      .messagesOf(roomId)
      .filter((e) => {
        const thread = threadOf(e);
        if (options.thread === undefined) return true;
        return options.thread === null ? thread === undefined : thread === options.thread;
      })
      .map((e) => {
        const versions = this.rooms.versions(e);
        const shown = this.rooms.shownContent(e);
        const user = this.users.find((u) => u.userId === e.sender);
        const thread = threadOf(e);
        const replyTo = replyOf(e);
        return {
          id: e.event_id,
          chat: e.room_id,
          text: String(shown.body ?? ""),
          author: { id: e.sender, bot: user?.bot ?? false },
          history: versions.map((v) => v.body),
          deleted: false,
          createdAt: e.origin_server_ts,
          content: e.content,
          shown,
          ...(thread !== undefined ? { thread } : {}),
          ...(replyTo !== undefined ? { replyTo } : {}),
          ...(e.txn ? { key: e.txn.txnId } : {}),
        };
      });
  }

  /** Stops the server. */
  close(): Promise<void> {
    for (const end of [...this.pendingPolls]) end();
    return this.server.close();
  }

  /** Timeline events per room per `/sync` when the filter names no limit. */
  defaultTimelineLimit = 50;
  /** Long polls waiting for news (ended at close). */
  readonly pendingPolls = new Set<() => void>();

  /** Typing indicators: `room|user` → epoch ms they lapse. */
  readonly typing = new Map<string, number>();

  /** Whether `user` shows as typing in `room` now. */
  isTyping(room: string, user: string = FAKE_BOT.userId): boolean {
    return (this.typing.get(`${room}|${user}`) ?? 0) > this.#clock();
  }

  /** The client-format event as `viewer` sees it (their txnId, the newest edit bundled). */
  clientEvent(event: FakeEvent, viewer?: FakeMatrixUser): Record<string, unknown> {
    const unsigned: Record<string, unknown> = {
      age: Math.max(0, this.#clock() - event.origin_server_ts),
    };
    if (
      event.txn &&
      viewer &&
      viewer.userId === event.sender &&
      viewer.deviceId === event.txn.deviceId
    ) {
      unsigned.transaction_id = event.txn.txnId;
    }
    if (event.redactedBy) unsigned.redacted_because = { event_id: event.redactedBy };
    const edit = this.rooms.latestEdit(event);
    if (edit) unsigned["m.relations"] = { "m.replace": this.clientEvent(edit) };
    return {
      event_id: event.event_id,
      room_id: event.room_id,
      type: event.type,
      sender: event.sender,
      origin_server_ts: event.origin_server_ts,
      content: event.redactedBy ? {} : event.content,
      ...(event.state_key !== undefined ? { state_key: event.state_key } : {}),
      ...(event.redacts !== undefined ? { redacts: event.redacts } : {}),
      unsigned,
    };
  }
}
