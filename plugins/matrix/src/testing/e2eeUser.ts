/**
 * The "user" of the encryption tests: a second real matrix-js-sdk client with its own Rust
 * crypto, device and store ({@link MatrixE2ee}), syncing and sending against the fake homeserver
 * like a person's client would. The fake only relays; every key is made, shared, and every event
 * encrypted and decrypted by the two real clients.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { MatrixHttp, seg } from "../client.ts";
import { closeE2ee, type MatrixE2ee, openE2ee } from "../e2ee.ts";
import type { FakeMatrixUser } from "./fakeTypes.ts";

/** One timeline event as the user's client shows it (decrypted when it could be). */
export type UserSeenEvent = {
  eventId: string;
  roomId: string;
  sender: string;
  /** The clear type (`m.room.message`…), or `m.room.encrypted` when it could not be decrypted. */
  type: string;
  content: Record<string, unknown>;
  encrypted: boolean;
  failure?: string;
};

type SyncAnswer = {
  next_batch: string;
  rooms?: {
    join?: Record<
      string,
      { timeline?: { events?: Array<Record<string, unknown>> }; state?: { events?: unknown[] } }
    >;
  };
  to_device?: { events?: unknown[] };
  device_lists?: { changed?: string[]; left?: string[] };
  device_one_time_keys_count?: Record<string, number>;
  device_unused_fallback_key_types?: string[];
};

/** A person's encrypting client. */
export class E2eeUser {
  readonly user: FakeMatrixUser;
  readonly http: MatrixHttp;
  readonly e2ee: MatrixE2ee;
  readonly storePath: string;
  /** Everything the client has seen, decrypted when possible, in order. */
  readonly seen: UserSeenEvent[] = [];
  #since: string | undefined;

  private constructor(user: FakeMatrixUser, http: MatrixHttp, e2ee: MatrixE2ee, storePath: string) {
    this.user = user;
    this.http = http;
    this.e2ee = e2ee;
    this.storePath = storePath;
  }

  /** Logs `user` in on `homeserverUrl` with a crypto store in `storePath`, keys uploaded. */
  static async start(
    homeserverUrl: string,
    user: FakeMatrixUser,
    storePath: string,
  ): Promise<E2eeUser> {
    const http = new MatrixHttp({
      homeserverUrl,
      accessToken: user.accessToken,
      userId: user.userId,
      deviceId: user.deviceId,
      timeoutMs: 10_000,
    });
    const e2ee = await openE2ee({ http, storePath });
    return new E2eeUser(user, http, e2ee, storePath);
  }

  /** One `/sync` (no wait): crypto first, then the timeline, decrypted. */
  async sync(): Promise<UserSeenEvent[]> {
    const answer = await this.http.request<SyncAnswer>("GET", "/sync", "GET /sync", {
      query: { since: this.#since, timeout: "0" },
    });
    const encryption: Array<{ roomId: string; content: Record<string, unknown> }> = [];
    for (const [roomId, room] of Object.entries(answer.rooms?.join ?? {})) {
      for (const e of [...(room.state?.events ?? []), ...(room.timeline?.events ?? [])]) {
        const event = e as { type?: string; content?: Record<string, unknown> };
        if (event.type === "m.room.encryption") {
          encryption.push({ roomId, content: event.content ?? {} });
        }
      }
    }
    await this.e2ee.processSync(
      {
        toDevice: answer.to_device?.events ?? [],
        deviceLists: answer.device_lists ?? {},
        oneTimeKeysCounts: answer.device_one_time_keys_count ?? {},
        unusedFallbackKeyTypes: answer.device_unused_fallback_key_types ?? [],
      },
      encryption,
    );
    const fresh: UserSeenEvent[] = [];
    for (const [roomId, room] of Object.entries(answer.rooms?.join ?? {})) {
      for (const event of room.timeline?.events ?? []) {
        const base = {
          eventId: String(event.event_id),
          roomId,
          sender: String(event.sender),
        };
        if (event.type !== "m.room.encrypted") {
          fresh.push({
            ...base,
            type: String(event.type),
            content: (event.content ?? {}) as Record<string, unknown>,
            encrypted: false,
          });
          continue;
        }
        const clear = await this.e2ee.decrypt(roomId, event);
        fresh.push(
          clear.ok
            ? { ...base, type: clear.type, content: clear.content, encrypted: true }
            : {
                ...base,
                type: "m.room.encrypted",
                content: (event.content ?? {}) as Record<string, unknown>,
                encrypted: true,
                failure: clear.code,
              },
        );
      }
    }
    this.#since = answer.next_batch;
    this.seen.push(...fresh);
    return fresh;
  }

  /** Syncs until `found` holds for what was seen, or `timeoutMs`. */
  async syncUntil(
    found: (seen: UserSeenEvent[]) => boolean,
    timeoutMs = 10_000,
  ): Promise<UserSeenEvent[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.sync();
      if (found(this.seen)) return this.seen;
      if (Date.now() > deadline) {
        throw new Error(`${this.user.userId} did not see it: ${JSON.stringify(this.seen)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Sends an encrypted `m.room.message` (what Element sends): `{ msgtype: "m.text", body }`. */
  async send(roomId: string, body: string, extra: Record<string, unknown> = {}): Promise<string> {
    const { type, content } = await this.e2ee.encrypt(roomId, "m.room.message", {
      msgtype: "m.text",
      body,
      ...extra,
    });
    const answer = await this.http.request<{ event_id: string }>(
      "PUT",
      `/rooms/${seg(roomId)}/send/${seg(type)}/${seg(randomUUID())}`,
      "PUT /rooms/{roomId}/send/{type}/{txnId}",
      { body: content },
    );
    return answer.event_id;
  }

  /** Closes the client's crypto (its store is saved). */
  close(): Promise<void> {
    return closeE2ee(this.storePath);
  }
}
