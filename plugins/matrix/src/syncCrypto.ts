/**
 * The parts of a raw `/sync` answer the crypto engine needs, read defensively (the answer is
 * shape-checked for rooms only; a hostile entry must not make the crypto refuse the whole batch
 * forever): the to-device events, device lists, one-time-key counts and fallback key types, and
 * the membership changes of a room's timeline (members who join an encrypted room later are
 * tracked for its next room key).
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#end-to-end-encryption,
 * https://spec.matrix.org/latest/client-server-api/#send-to-device-messaging
 *
 * @module
 */
import type { SyncCryptoParts } from "./e2ee.ts";
import { eventTypeOf } from "./syncShape.ts";

/** The encryption parts of a raw `/sync` answer (the parsed shape leaves them out). */
export function cryptoPartsOf(raw: unknown): SyncCryptoParts {
  const r = (raw ?? {}) as {
    to_device?: { events?: unknown };
    device_lists?: { changed?: unknown; left?: unknown };
    device_one_time_keys_count?: unknown;
    device_unused_fallback_key_types?: unknown;
  };
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x) => typeof x === "string") : []);
  const counts = r.device_one_time_keys_count;
  return {
    // Only objects: a hostile entry must not make the crypto refuse the whole batch forever.
    toDevice: Array.isArray(r.to_device?.events)
      ? r.to_device.events.filter(
          (e: unknown) => e !== null && typeof e === "object" && !Array.isArray(e),
        )
      : [],
    deviceLists: { changed: strings(r.device_lists?.changed), left: strings(r.device_lists?.left) },
    oneTimeKeysCounts:
      counts && typeof counts === "object" ? (counts as Record<string, number>) : {},
    ...(Array.isArray(r.device_unused_fallback_key_types)
      ? { unusedFallbackKeyTypes: strings(r.device_unused_fallback_key_types) }
      : {}),
  };
}

/** The membership changes (`m.room.member` with a string `state_key`) of a room's timeline. */
export function membershipsOf(
  roomId: string,
  timeline: readonly unknown[],
): Array<{ roomId: string; userId: string; membership: string }> {
  const found: Array<{ roomId: string; userId: string; membership: string }> = [];
  for (const e of timeline) {
    if (eventTypeOf(e) !== "m.room.member") continue;
    const m = e as { state_key?: unknown; content?: { membership?: unknown } | null };
    const membership = m.content?.membership;
    if (typeof m.state_key === "string" && typeof membership === "string") {
      found.push({ roomId, userId: m.state_key, membership });
    }
  }
  return found;
}
