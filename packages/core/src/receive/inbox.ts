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
 * @module
 */
import type { MessageEventClass } from "../adapter/receive.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { ReceiveAckPolicy } from "../message/policy.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import type { DedupeKey, LedgerEvent, WatermarkKey } from "../state/types.ts";
import { dedupeKeyString } from "./inflight.ts";
import { jsonSafe } from "./json.ts";

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

/**
 * Appends one record. @returns its seq (referenced by markers).
 * @throws StoreUnavailableError when the store cannot be written.
 */
export async function appendRecord(
  store: MessageStateStore,
  record: InboxRecord,
  now: number,
): Promise<number> {
  const message =
    record.message.raw === record.raw ? { ...record.message, raw: undefined } : record.message;
  const [event] = await store.appendLedger([
    {
      conversation: inboxConversation(record.key.channel),
      type: "inbound/recorded",
      at: now,
      data: jsonSafe({ ...record, message }),
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
): Promise<{ cursor: number; records: ScannedRecord[]; lastSeq: number }> {
  const stored = await store.getWatermark(inboxCursorKey(channel));
  const cursor = stored === undefined ? 0 : Number(stored);
  const conversation = inboxConversation(channel);
  const records = new Map<number, ScannedRecord>();
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
        const record = restore(e.data as InboxRecord);
        records.set(e.seq, { seq: e.seq, record, resolved: false, failures: 0 });
        continue;
      }
      const marker = e.data as InboxMarker;
      const target = records.get(marker.ref);
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
  return { cursor, records: list, lastSeq };
}

function restore(record: InboxRecord): InboxRecord {
  if (record.message.raw === undefined && record.raw !== undefined) {
    return { ...record, message: { ...record.message, raw: record.raw } };
  }
  return record;
}
