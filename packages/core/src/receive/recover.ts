/**
 * Recovery of recorded inbound messages that did not commit: the process died after the
 * record (and perhaps after answering the platform), or the handler failed after the platform
 * was answered. Each is dispatched again under a fresh dedupe lease, at most `maxAttempts`
 * times, then moved to a dead letter (raw kept).
 *
 * Records are isolated: a record that cannot be restored is dead-lettered with its raw text
 * (`HERALD_RECEIVE_RECORD_UNREADABLE`), one channel's failure never stops the others, and up to
 * {@link RECOVERY_CONCURRENCY} messages of a channel are re-dispatched at once.
 *
 * Safe to run in several processes at once: the dedupe lease decides who dispatches, and the
 * cursor only moves over records that are resolved (committed, abandoned, or `done` in the
 * dedupe table).
 *
 * @module
 */
import { setImmediate } from "node:timers/promises";
import type { HeraldLogger } from "../logger.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import { AckGate } from "./ack.ts";
import type { DedupeLeases } from "./DedupeLeases.ts";
import type { DispatchJob } from "./dispatch.ts";
import { ReceiveAttemptsExhaustedError, ReceiveRecordUnreadableError } from "./errors.ts";
import {
  appendMarker,
  type BrokenRecord,
  inboxCursorKey,
  type ScannedRecord,
  scanInbox,
} from "./inbox.ts";
import { dedupeKeyString, type InFlightEntry, type InFlightRegistry } from "./inflight.ts";
import { deadLetterError } from "./intake.ts";
import { jsonSafe } from "./json.ts";
import type { ReceiveOutcome, ReceiveRecoverReport } from "./types.ts";

/** What recovery needs from the runtime. */
export type RecoverDeps = {
  store: MessageStateStore;
  clock: () => number;
  log: HeraldLogger;
  maxAttempts: number;
  inflight: InFlightRegistry;
  leases: DedupeLeases;
  dispatch(entry: InFlightEntry, job: DispatchJob): Promise<ReceiveOutcome>;
};

/** How many recorded messages of one channel are re-dispatched at once. */
export const RECOVERY_CONCURRENCY = 8;

type Verdict = "resolved" | "held" | "failed" | "processed" | "dead_lettered";

/** Runs one recovery pass over the inboxes of `channels`. */
export async function recoverInbox(
  channels: readonly string[],
  deps: RecoverDeps,
): Promise<ReceiveRecoverReport> {
  const report: ReceiveRecoverReport = { redispatched: 0, processed: 0, deadLettered: 0, held: 0 };
  for (const channel of channels) {
    try {
      await recoverChannel(channel, deps, report);
    } catch (error) {
      // One channel's store failure never stops the others; the next pass tries again.
      deps.log.error({ channel, err: error }, "inbound recovery of a channel failed");
    }
  }
  if (report.redispatched + report.deadLettered + report.held > 0)
    deps.log.info({ ...report }, "receive recovery pass");
  return report;
}

async function recoverChannel(
  channel: string,
  deps: RecoverDeps,
  report: ReceiveRecoverReport,
): Promise<void> {
  const { cursor, records, broken, lastSeq } = await scanInbox(deps.store, channel);
  let lowestOpen = Number.POSITIVE_INFINITY;
  for (const b of broken) {
    if (b.resolved) continue;
    const verdict = await deadLetterBroken(channel, b, deps);
    if (verdict === "dead_lettered") report.deadLettered += 1;
    if (verdict === "held") lowestOpen = Math.min(lowestOpen, b.seq);
  }
  // Several records of one message (redeliveries that each got the lease): handle it once.
  const byKey = new Map<string, ScannedRecord[]>();
  for (const r of records) {
    if (r.resolved) continue;
    const id = dedupeKeyString(r.record.key);
    byKey.set(id, [...(byKey.get(id) ?? []), r]);
  }
  const groups = [...byKey.values()];
  let next = 0;
  const lane = async () => {
    for (;;) {
      // The store may answer without a macrotask in between (node:sqlite is synchronous): give
      // I/O (webhooks, /livez) a turn between records, or a big backlog starves the process.
      await setImmediate();
      // Checked after the yield: another lane may have taken the last group meanwhile.
      if (next >= groups.length) break;
      const group = groups[next++] as ScannedRecord[];
      const latest = group[group.length - 1] as ScannedRecord;
      const verdict = await recoverOne(latest, deps);
      if (verdict === "processed" || verdict === "failed") report.redispatched += 1;
      if (verdict === "processed") report.processed += 1;
      if (verdict === "dead_lettered") report.deadLettered += 1;
      if (verdict === "held") report.held += 1;
      const resolved =
        verdict === "resolved" || verdict === "processed" || verdict === "dead_lettered";
      if (!resolved) lowestOpen = Math.min(lowestOpen, ...group.map((r) => r.seq));
      else {
        const type = verdict === "dead_lettered" ? "inbound/abandoned" : "inbound/committed";
        for (const older of group.slice(0, -1)) await mark(deps, type, older, undefined);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(RECOVERY_CONCURRENCY, groups.length) }, lane));
  const cursorTo = Number.isFinite(lowestOpen) ? lowestOpen - 1 : lastSeq;
  if (cursorTo > cursor) await deps.store.setWatermark(inboxCursorKey(channel), String(cursorTo));
}

/** Moves an unreadable record to a dead letter with its raw text (unless already handled). */
async function deadLetterBroken(
  channel: string,
  broken: BrokenRecord,
  deps: RecoverDeps,
): Promise<"dead_lettered" | "resolved" | "held"> {
  const error = new ReceiveRecordUnreadableError(channel, broken.seq, broken.problem);
  try {
    if (broken.key) {
      // Processed (or being processed) from memory already: not lost, nothing to dead-letter.
      if (deps.inflight.get(broken.key)) return "held";
      const dedupe = await deps.store.getDedupe(broken.key);
      if (dedupe?.status === "done") {
        await appendMarker(
          deps.store,
          channel,
          "inbound/committed",
          { ref: broken.seq, key: dedupeKeyString(broken.key) },
          deps.clock(),
        );
        return "resolved";
      }
      if (dedupe?.status === "in_flight" && (dedupe.leaseExpiresAt ?? 0) > deps.clock())
        return "held";
    }
    const letter = await deps.store.putDeadLetter({
      channel,
      ...(broken.key?.accountId === undefined ? {} : { accountId: broken.key.accountId }),
      raw: jsonSafe(broken.raw),
      error: deadLetterError(error),
      receivedAt: broken.receivedAt ?? deps.clock(),
    });
    await appendMarker(
      deps.store,
      channel,
      "inbound/abandoned",
      {
        ref: broken.seq,
        key: broken.key ? dedupeKeyString(broken.key) : `seq:${broken.seq}`,
        deadLetterId: letter.id,
      },
      deps.clock(),
    );
    deps.log.warn(
      { channel, seq: broken.seq, deadLetterId: letter.id, problem: broken.problem },
      "unreadable inbound record moved to a dead letter",
    );
    return "dead_lettered";
  } catch (err) {
    deps.log.error({ channel, seq: broken.seq, err }, "could not dead-letter an unreadable record");
    return "held";
  }
}

async function recoverOne(scanned: ScannedRecord, deps: RecoverDeps): Promise<Verdict> {
  const { record } = scanned;
  const key = record.key;
  if (deps.inflight.get(key)) return "held"; // being processed in this process right now
  const ack = new AckGate();
  ack.setPolicy(record.ackPolicy);
  const entry = deps.inflight.register(key, { ...record.event }, ack);
  try {
    const got = await deps.leases.acquire(key);
    if (got.status === "in_flight") {
      entry.end("released");
      return "held";
    }
    if (got.status === "done") {
      entry.end("done");
      await mark(deps, "inbound/committed", scanned, undefined);
      return "resolved";
    }
    if (scanned.failures >= deps.maxAttempts) {
      const error = new ReceiveAttemptsExhaustedError(
        key.channel,
        key.eventId,
        scanned.failures,
        scanned.lastError,
      );
      const letter = await deps.store.putDeadLetter({
        channel: key.channel,
        ...(key.accountId === undefined ? {} : { accountId: key.accountId }),
        raw: jsonSafe(record.raw),
        error: deadLetterError(error),
        receivedAt: record.receivedAt,
      });
      await mark(deps, "inbound/abandoned", scanned, letter.id);
      await deps.leases.release(key);
      entry.end("released");
      deps.log.warn(
        { key, deadLetterId: letter.id },
        "recorded message abandoned to a dead letter",
      );
      return "dead_lettered";
    }
    entry.recordSeq = scanned.seq;
    const outcome = await deps.dispatch(entry, {
      message: record.message,
      key,
      policy: record.ackPolicy,
      seq: scanned.seq,
      attempt: scanned.failures + 1,
      recovered: true,
    });
    return outcome.status === "processed" ? "processed" : "failed";
  } catch (error) {
    await deps.leases.release(key);
    entry.end("released");
    deps.log.error(
      { key, error: error instanceof Error ? error.message : String(error) },
      "recovery of a recorded message failed",
    );
    return "failed";
  }
}

async function mark(
  deps: RecoverDeps,
  type: "inbound/committed" | "inbound/abandoned",
  scanned: ScannedRecord,
  deadLetterId: string | undefined,
): Promise<void> {
  try {
    await appendMarker(
      deps.store,
      scanned.record.key.channel,
      type,
      {
        ref: scanned.seq,
        key: dedupeKeyString(scanned.record.key),
        ...(deadLetterId === undefined ? {} : { deadLetterId }),
      },
      deps.clock(),
    );
  } catch (error) {
    // Not fatal: the cursor moves past resolved records anyway; the marker only saves a lookup.
    deps.log.warn(
      { error: error instanceof Error ? error.message : String(error) },
      `could not write ${type} marker`,
    );
  }
}
