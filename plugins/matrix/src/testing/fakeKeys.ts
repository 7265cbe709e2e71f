/**
 * What the fake homeserver relays for end-to-end encryption — and only relays: the keys and
 * to-device messages are opaque JSON here, the cryptography happens in the two real clients.
 *
 * - `POST /keys/upload`: device keys, one-time keys and fallback keys per device (an identical
 *   one-time key uploaded again is accepted, a different one under a known id is refused, as
 *   Synapse does); answers `one_time_key_counts`.
 * - `POST /keys/query`: the device keys of the users asked for.
 * - `POST /keys/claim`: one one-time key per device, removed when claimed; the fallback key when
 *   none is left (it stays, marked used).
 * - `PUT /sendToDevice/{eventType}/{txnId}`: queued per device (`*` = every device of the user),
 *   idempotent per sender device and txnId.
 * - `/sync` (`fakeSync.ts` asks {@link FakeKeys.syncParts}): `to_device.events` after `since` —
 *   those up to `since` are deleted first, as the spec says ("once a client has acknowledged them
 *   by passing a later since") —, `device_lists.changed` (users sharing a room whose device
 *   keys changed), `device_one_time_keys_count`, `device_unused_fallback_key_types`.
 * - `GET /rooms/{roomId}/joined_members`.
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#end-to-end-encryption,
 * https://spec.matrix.org/latest/client-server-api/#send-to-device-messaging
 *
 * @module
 */
import type { FakeHomeserverCore, FakeMatrixUser } from "./fakeTypes.ts";

type Keys = Record<string, unknown>;
type ToDevice = { stream: number; user: string; device: string; event: Keys };

const deviceKey = (user: string, device: string) => `${user}|${device}`;

/** The key and to-device tables of the fake. */
export class FakeKeys {
  /** user → device → device keys as uploaded. */
  readonly devices = new Map<string, Map<string, Keys>>();
  /** `user|device` → key id → one-time key, unclaimed. */
  readonly oneTimeKeys = new Map<string, Map<string, unknown>>();
  /** `user|device` → key id → fallback key, and whether it was used. */
  readonly fallbackKeys = new Map<string, { id: string; key: unknown; used: boolean }>();
  /** Queued to-device messages, in stream order. */
  readonly toDevice: ToDevice[] = [];
  /** Device-key changes: the user and the stream position. */
  readonly changes: Array<{ stream: number; user: string }> = [];
  /** `user|device|type|txnId` of the to-device sends seen. */
  readonly #sent = new Set<string>();
  /** When set, to-device messages to these `user|device`s are held until released (late keys). */
  readonly held = new Set<string>();
  readonly #heldMessages: Array<Omit<ToDevice, "stream">> = [];

  /** The to-device events queued for a device after `since` (acknowledging the rest). */
  syncParts(fake: FakeHomeserverCore, user: FakeMatrixUser, since: number | undefined) {
    const key = deviceKey(user.userId, user.deviceId);
    if (since !== undefined) {
      for (let i = this.toDevice.length - 1; i >= 0; i--) {
        const m = this.toDevice[i] as ToDevice;
        if (m.user === user.userId && m.device === user.deviceId && m.stream <= since)
          this.toDevice.splice(i, 1);
      }
    }
    const events = this.toDevice
      .filter((m) => m.user === user.userId && m.device === user.deviceId)
      .map((m) => m.event);
    const shared = sharedUsers(fake, user.userId);
    const changed = [
      ...new Set(
        this.changes
          .filter((c) => since !== undefined && c.stream > since && shared.has(c.user))
          .map((c) => c.user),
      ),
    ];
    const fallback = this.fallbackKeys.get(key);
    return {
      to_device: { events },
      device_lists: { changed, left: [] },
      device_one_time_keys_count: { signed_curve25519: this.oneTimeKeys.get(key)?.size ?? 0 },
      device_unused_fallback_key_types: fallback && !fallback.used ? ["signed_curve25519"] : [],
    };
  }

  /** Whether a device has news after `since` (to-device messages or relevant key changes). */
  hasNews(fake: FakeHomeserverCore, user: FakeMatrixUser, since: number): boolean {
    if (
      this.toDevice.some(
        (m) => m.user === user.userId && m.device === user.deviceId && m.stream > since,
      )
    )
      return true;
    const shared = sharedUsers(fake, user.userId);
    return this.changes.some((c) => c.stream > since && shared.has(c.user));
  }

  /** Holds the to-device messages to a device (room keys arrive late) until {@link release}. */
  hold(user: FakeMatrixUser): void {
    this.held.add(deviceKey(user.userId, user.deviceId));
  }

  /** Delivers the held to-device messages of a device. */
  release(fake: FakeHomeserverCore, user: FakeMatrixUser): void {
    this.held.delete(deviceKey(user.userId, user.deviceId));
    const mine = this.#heldMessages.filter(
      (m) => m.user === user.userId && m.device === user.deviceId,
    );
    for (const m of mine) this.#heldMessages.splice(this.#heldMessages.indexOf(m), 1);
    for (const m of mine) this.toDevice.push({ ...m, stream: fake.rooms.tick() });
  }

  /** Queues one to-device message (or holds it). */
  queue(fake: FakeHomeserverCore, message: Omit<ToDevice, "stream">): void {
    if (this.held.has(deviceKey(message.user, message.device))) {
      this.#heldMessages.push(message);
      return;
    }
    this.toDevice.push({ ...message, stream: fake.rooms.tick() });
  }

  /** Marks a send by txnId; false when seen before (an idempotent replay). */
  firstSend(id: string): boolean {
    if (this.#sent.has(id)) return false;
    this.#sent.add(id);
    return true;
  }
}

/** Users sharing a joined room with `userId` (themselves included). */
function sharedUsers(fake: FakeHomeserverCore, userId: string): Set<string> {
  const users = new Set<string>([userId]);
  for (const room of fake.rooms.rooms.values()) {
    if (!room.members.has(userId)) continue;
    for (const m of room.members) users.add(m);
  }
  return users;
}

/** Registers the key, to-device and joined-members routes on `fake`'s server. */
export function registerKeys(fake: FakeHomeserverCore): void {
  const s = fake.server;
  const keys = fake.keys;
  const v3 = "/_matrix/client/v3";
  const auth = (header: string | undefined) => fake.userOfToken(header?.replace(/^Bearer\s+/i, ""));
  const unknownToken = () =>
    s.error({ status: 401, code: "M_UNKNOWN_TOKEN", description: "Invalid access token passed." });
  const invalid = (what: string) =>
    s.error({ status: 400, code: "M_INVALID_PARAM", description: what });

  s.route("POST", `${v3}/keys/upload`, "keys", async (c) => {
    const user = auth(c.req.header("authorization"));
    if (!user) return unknownToken();
    const body = (await c.req.json()) as {
      device_keys?: Keys;
      one_time_keys?: Record<string, unknown>;
      fallback_keys?: Record<string, unknown>;
    };
    const key = deviceKey(user.userId, user.deviceId);
    if (body.device_keys) {
      const dk = body.device_keys;
      if (dk.user_id !== user.userId || dk.device_id !== user.deviceId) {
        return invalid("device_keys.user_id / device_id do not match the access token");
      }
      const mine = keys.devices.get(user.userId) ?? new Map<string, Keys>();
      const before = JSON.stringify(mine.get(user.deviceId));
      mine.set(user.deviceId, dk);
      keys.devices.set(user.userId, mine);
      if (before !== JSON.stringify(dk)) {
        keys.changes.push({ stream: fake.rooms.tick(), user: user.userId });
      }
    }
    const otks = keys.oneTimeKeys.get(key) ?? new Map<string, unknown>();
    for (const [id, value] of Object.entries(body.one_time_keys ?? {})) {
      const known = otks.get(id);
      if (known !== undefined && JSON.stringify(known) !== JSON.stringify(value)) {
        return invalid(`One time key ${id} already exists`);
      }
      otks.set(id, value);
    }
    keys.oneTimeKeys.set(key, otks);
    for (const [id, value] of Object.entries(body.fallback_keys ?? {})) {
      keys.fallbackKeys.set(key, { id, key: value, used: false });
    }
    const counts: Record<string, number> = {};
    for (const id of otks.keys()) {
      const algorithm = id.split(":")[0] as string;
      counts[algorithm] = (counts[algorithm] ?? 0) + 1;
    }
    return c.json({ one_time_key_counts: counts });
  });

  s.route("POST", `${v3}/keys/query`, "keys", async (c) => {
    const user = auth(c.req.header("authorization"));
    if (!user) return unknownToken();
    const body = (await c.req.json()) as { device_keys?: Record<string, string[]> };
    const answer: Record<string, Record<string, Keys>> = {};
    for (const [userId, wanted] of Object.entries(body.device_keys ?? {})) {
      const all = keys.devices.get(userId) ?? new Map<string, Keys>();
      const chosen: Record<string, Keys> = {};
      for (const [deviceId, dk] of all) {
        if (wanted.length === 0 || wanted.includes(deviceId)) chosen[deviceId] = dk;
      }
      answer[userId] = chosen;
    }
    return c.json({ failures: {}, device_keys: answer });
  });

  s.route("POST", `${v3}/keys/claim`, "keys", async (c) => {
    const user = auth(c.req.header("authorization"));
    if (!user) return unknownToken();
    const body = (await c.req.json()) as { one_time_keys?: Record<string, Record<string, string>> };
    const answer: Record<string, Record<string, Record<string, unknown>>> = {};
    for (const [userId, devices] of Object.entries(body.one_time_keys ?? {})) {
      for (const [deviceId, algorithm] of Object.entries(devices)) {
        const key = deviceKey(userId, deviceId);
        const otks = keys.oneTimeKeys.get(key);
        const id = [...(otks?.keys() ?? [])].find((k) => k.startsWith(`${algorithm}:`));
        let claimed: Record<string, unknown> | undefined;
        if (otks && id !== undefined) {
          claimed = { [id]: otks.get(id) };
          otks.delete(id);
        } else {
          const fallback = keys.fallbackKeys.get(key);
          if (fallback?.id.startsWith(`${algorithm}:`)) {
            fallback.used = true;
            claimed = { [fallback.id]: fallback.key };
          }
        }
        if (!claimed) continue;
        answer[userId] ??= {};
        (answer[userId] as Record<string, Record<string, unknown>>)[deviceId] = claimed;
      }
    }
    return c.json({ failures: {}, one_time_keys: answer });
  });

  s.route("PUT", `${v3}/sendToDevice/:eventType/:txnId`, "keys", async (c) => {
    const user = auth(c.req.header("authorization"));
    if (!user) return unknownToken();
    const type = c.req.param("eventType") as string;
    const txnId = c.req.param("txnId") as string;
    const body = (await c.req.json()) as { messages?: Record<string, Record<string, Keys>> };
    if (!keys.firstSend([user.userId, user.deviceId, type, txnId].join("|"))) return c.json({});
    for (const [userId, devices] of Object.entries(body.messages ?? {})) {
      for (const [deviceId, content] of Object.entries(devices)) {
        const targets =
          deviceId === "*" ? [...(keys.devices.get(userId)?.keys() ?? [])] : [deviceId];
        for (const device of targets) {
          keys.queue(fake, {
            user: userId,
            device,
            event: { type, sender: user.userId, content },
          });
        }
      }
    }
    return c.json({});
  });

  // No server-side key backup on the fake (the SDK asks at start): the spec's 404.
  s.route("GET", `${v3}/room_keys/version`, "keys", (c) => {
    if (!auth(c.req.header("authorization"))) return unknownToken();
    return s.error({ status: 404, code: "M_NOT_FOUND", description: "No current backup version" });
  });

  s.route("GET", `${v3}/rooms/:roomId/joined_members`, "state", (c) => {
    const user = auth(c.req.header("authorization"));
    if (!user) return unknownToken();
    const room = fake.rooms.rooms.get(c.req.param("roomId") as string);
    if (!room) return s.error({ status: 404, code: "M_NOT_FOUND", description: "room" });
    if (!room.members.has(user.userId))
      return s.error({ status: 403, code: "M_FORBIDDEN", description: "not in room" });
    const joined: Record<string, Record<string, never>> = {};
    for (const m of room.members) joined[m] = {};
    return c.json({ joined });
  });
}
