/**
 * The inbound record ("record" step; seed, "Receive context": the inbound record ack). Each
 * dispatched message is appended, before dispatch, to a per-channel inbox log kept in the
 * store's ledger, with markers when it commits, fails or is abandoned. A message whose
 * platform was already answered (`immediate`, `after-record`) is then never lost: recovery
 * re-dispatches every recorded message that did not commit.
 *
 * Layout in the ledger: conversation `herald.inbox/<channel>`; events `inbound/recorded`
 * (data {@link InboxRecord}) and `inbound/committed` | `inbound/failed` | `inbound/abandoned`
 * (data {@link InboxMarker}, `ref` = seq of the record). The recovery cursor is the watermark
 * `{ channel, source: "herald.inbox" }`: every record at or below it is resolved.
 *
 * Records are isolated ([H20] item 2): the raw payload is kept as text (`rawText`, see
 * `toRawText`), each part is checked on its own when written, and a record that cannot be
 * restored (written by a bad payload, or damaged) is reported by {@link scanInbox} as `broken`
 * with its raw text — recovery dead-letters it, and every other record still recovers.
 *
 * @module
 */
import type { MessageEventClass } from "../adapter/receive.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { ReceiveAckPolicy } from "../message/policy.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import type { DedupeKey, LedgerEvent, WatermarkKey } from "../state/types.ts";
import { dedupeKeyString } from "./inflight.ts";
import { fromRawText, jsonSafe, type RawTextKind, toRawText } from "./json.ts";

/** What is recorded before dispatch: enough to dispatch again without the platform. */
export type InboxRecord = {
  key: DedupeKey;
  /** The normalized message (its `raw` omitted when it is the payload itself). */
  message: ChannelMessage;
  event: MessageEventClass;
  ackPolicy: ReceiveAckPolicy;
  /** The raw payload, for dead letters and replay. */
  raw: unknown;
  /** Epoch ms. */
  receivedAt: number;
};

/** A marker resolving (or not) one record. */
export type InboxMarker = {
  ref: number;
  /** {@link dedupeKeyString} of the record's key. */
  key: string;
  error?: string;
  deadLetterId?: string;
};

type MarkerType = "inbound/committed" | "inbound/failed" | "inbound/abandoned";

/** The ledger conversation holding a channel's inbox. */
export function inboxConversation(channel: string): string {
  return `herald.inbox/${channel}`;
}

/** The watermark key of a channel's recovery cursor. */
export function inboxCursorKey(channel: string): WatermarkKey {
  return { channel, source: "herald.inbox" };
}

/** What is stored for one record (version 2: the raw payload kept as text). */
type StoredRecord = {
  v: 2;
  key: DedupeKey;
  /** The normalized message without `raw`; `null` when it could not be serialized. */
  message: ChannelMessage | null;
  /** Why `message` is `null`. */
  messageError?: string;
  event: MessageEventClass;
  ackPolicy: ReceiveAckPolicy;
  rawText: string;
  rawKind: RawTextKind;
  /** Whether `message.raw` is the payload itself (restored from `rawText`). */
  rawIsPayload: boolean;
  receivedAt: number;
};

/**
 * Appends one record. A message that cannot be serialized (a BigInt, a cycle, a 10,000-deep
 * field) is stored as `null` with the reason, next to the raw text: recovery then dead-letters
 * it with that text instead of failing the whole inbox. @returns its seq (referenced by markers).
 * @throws StoreUnavailableError when the store cannot be written.
 */
export async function appendRecord(
  store: MessageStateStore,
  record: InboxRecord,
  now: number,
): Promise<number> {
  const rawIsPayload = record.message.raw === record.raw;
  const message = rawIsPayload ? { ...record.message, raw: undefined } : record.message;
  const checked = jsonSafe(message);
  const messageOk = checked === message;
  const stored: StoredRecord = {
    v: 2,
    key: record.key,
    message: messageOk ? message : null,
    ...(messageOk ? {} : { messageError: String((checked as { reason?: unknown }).reason) }),
    event: record.event,
    ackPolicy: record.ackPolicy,
    ...toRawText(record.raw),
    rawIsPayload,
    receivedAt: record.receivedAt,
  };
  const [event] = await store.appendLedger([
    {
      conversation: inboxConversation(record.key.channel),
      type: "inbound/recorded",
      at: now,
      data: stored,
    },
  ]);
  if (!event) throw new Error("appendLedger returned no event");
  return event.seq;
}

/** Appends a marker for the record `ref`. */
export async function appendMarker(
  store: MessageStateStore,
  channel: string,
  type: MarkerType,
  marker: InboxMarker,
  now: number,
): Promise<void> {
  await store.appendLedger([
    { conversation: inboxConversation(channel), type, at: now, data: marker },
  ]);
}

/** A record {@link scanInbox} could not restore: its raw text, and what was wrong. */
export type BrokenRecord = {
  seq: number;
  /** The record's key when it could be read. */
  key?: DedupeKey;
  /** The payload back from its raw text (or the best description of it). */
  raw: unknown;
  /** What was wrong, naming the field. */
  problem: string;
  receivedAt?: number;
  resolved: boolean;
};

/** A record found by {@link scanInbox}, with what its markers say. */
export type ScannedRecord = {
  seq: number;
  record: InboxRecord;
  resolved: boolean;
  /** Failed dispatches of this message (all records of the same key in the scan). */
  failures: number;
  lastError?: string;
};

/** Reads a channel's inbox after the cursor; @returns records in seq order and the last seq read. */
export async function scanInbox(
  store: MessageStateStore,
  channel: string,
  pageSize = 500,
): Promise<{
  cursor: number;
  records: ScannedRecord[];
  broken: BrokenRecord[];
  lastSeq: number;
}> {
  const stored = await store.getWatermark(inboxCursorKey(channel));
  const cursor = stored === undefined ? 0 : Number(stored);
  const conversation = inboxConversation(channel);
  const records = new Map<number, ScannedRecord>();
  const broken = new Map<number, BrokenRecord>();
  const failuresByKey = new Map<string, { n: number; last?: string }>();
  let lastSeq = cursor;
  for (;;) {
    const page: LedgerEvent[] = await store.readLedger({
      conversation,
      fromSeq: lastSeq + 1,
      limit: pageSize,
    });
    for (const e of page) {
      lastSeq = e.seq;
      if (e.type === "inbound/recorded") {
        const restored = restore(e.data);
        if (restored.ok)
          records.set(e.seq, { seq: e.seq, record: restored.record, resolved: false, failures: 0 });
        else broken.set(e.seq, { seq: e.seq, ...restored.broken, resolved: false });
        continue;
      }
      const marker = (e.data ?? {}) as InboxMarker;
      const target = records.get(marker.ref) ?? broken.get(marker.ref);
      if (e.type === "inbound/failed") {
        const f = failuresByKey.get(marker.key) ?? { n: 0 };
        f.n += 1;
        if (marker.error !== undefined) f.last = marker.error;
        failuresByKey.set(marker.key, f);
      } else if (target) {
        target.resolved = true;
      }
    }
    if (page.length < pageSize) break;
  }
  const list = [...records.values()];
  for (const r of list) {
    const f = failuresByKey.get(dedupeKeyString(r.record.key));
    if (f) {
      r.failures = f.n;
      if (f.last !== undefined) r.lastError = f.last;
    }
  }
  return { cursor, records: list, broken: [...broken.values()], lastSeq };
}

type Restored =
  | { ok: true; record: InboxRecord }
  | { ok: false; broken: Omit<BrokenRecord, "seq" | "resolved"> };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Restores one stored record, checking each field it needs; never throws. */
function restore(data: unknown): Restored {
  if (!isObject(data)) return broke(undefined, data, "the record is not an object");
  const key = isKey(data.key) ? data.key : undefined;
  const receivedAt = typeof data.receivedAt === "number" ? data.receivedAt : undefined;
  // Version 2 keeps the raw payload as text; version 1 kept it as JSON in `raw`.
  const raw =
    data.v === 2 && typeof data.rawText === "string"
      ? fromRawText({ rawText: data.rawText, rawKind: data.rawKind as RawTextKind })
      : data.unserializable === true
        ? data
        : data.raw;
  const fail = (problem: string) => broke(key, raw, problem, receivedAt);
  if (data.unserializable === true)
    return fail(`the record could not be stored as JSON (${String(data.reason ?? data.type)})`);
  if (!key) return fail("record.key is not a { channel, eventId } dedupe key");
  if (data.message === null)
    return fail(`record.message could not be stored as JSON (${String(data.messageError)})`);
  if (!isObject(data.message) || typeof data.message.id !== "string")
    return fail("record.message is not a message with a string id");
  if (!isObject(data.event)) return fail("record.event is missing");
  if (!isObject(data.ackPolicy) || typeof data.ackPolicy.kind !== "string")
    return fail("record.ackPolicy is missing");
  if (receivedAt === undefined) return fail("record.receivedAt is not a number");
  let message = data.message as ChannelMessage;
  const rawIsPayload = data.v === 2 ? data.rawIsPayload === true : message.raw === undefined;
  if (rawIsPayload && raw !== undefined) message = { ...message, raw };
  return {
    ok: true,
    record: {
      key,
      message,
      event: data.event as MessageEventClass,
      ackPolicy: data.ackPolicy as ReceiveAckPolicy,
      raw,
      receivedAt,
    },
  };
}

function isKey(v: unknown): v is DedupeKey {
  return isObject(v) && typeof v.channel === "string" && typeof v.eventId === "string";
}

function broke(
  key: DedupeKey | undefined,
  raw: unknown,
  problem: string,
  receivedAt?: number,
): Restored {
  return {
    ok: false,
    broken: {
      ...(key ? { key } : {}),
      raw,
      problem,
      ...(receivedAt === undefined ? {} : { receivedAt }),
    },
  };
}
