/**
 * Recovery of recorded inbound messages that did not commit: the process died after the
 * record (and perhaps after answering the platform), or the handler failed after the platform
 * was answered. Each is dispatched again under a fresh dedupe lease, at most `maxAttempts`
 * times, then moved to a dead letter (raw kept).
 *
 * Safe to run in several processes at once: the dedupe lease decides who dispatches, and the
 * cursor only moves over records that are resolved (committed, abandoned, or `done` in the
 * dedupe table).
 *
 * @module
 */
import type { HeraldLogger } from "../logger.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import { AckGate } from "./ack.ts";
import type { DedupeLeases } from "./DedupeLeases.ts";
import type { DispatchJob } from "./dispatch.ts";
import { ReceiveAttemptsExhaustedError } from "./errors.ts";
import { appendMarker, inboxCursorKey, type ScannedRecord, scanInbox } from "./inbox.ts";
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

type Verdict = "resolved" | "held" | "failed" | "processed" | "dead_lettered";

/** Runs one recovery pass over the inboxes of `channels`. */
export async function recoverInbox(
  channels: readonly string[],
  deps: RecoverDeps,
): Promise<ReceiveRecoverReport> {
  const report: ReceiveRecoverReport = { redispatched: 0, processed: 0, deadLettered: 0, held: 0 };
  for (const channel of channels) {
    const { cursor, records, lastSeq } = await scanInbox(deps.store, channel);
    // Several records of one message (redeliveries that each got the lease): handle it once.
    const byKey = new Map<string, ScannedRecord[]>();
    for (const r of records) {
      if (r.resolved) continue;
      const id = dedupeKeyString(r.record.key);
      byKey.set(id, [...(byKey.get(id) ?? []), r]);
    }
    let lowestOpen = Number.POSITIVE_INFINITY;
    for (const group of byKey.values()) {
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
    const next = Number.isFinite(lowestOpen) ? lowestOpen - 1 : lastSeq;
    if (next > cursor) await deps.store.setWatermark(inboxCursorKey(channel), String(next));
  }
  if (report.redispatched + report.deadLettered + report.held > 0)
    deps.log.info({ ...report }, "receive recovery pass");
  return report;
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
