/**
 * `herald queue ls | show | retry | cancel`: operators' view of the send queue.
 *
 * @module
 */
import {
  INTENT_STATUSES,
  type IntentStatus,
  type MessageStateStore,
  type OperatorAction,
  statusesAllowing,
} from "@herald/core";
import { applyOperation, type BulkResult, intentJson } from "../../queue/operations.ts";
import { QUEUE_LEGEND, queueRows } from "../../queue/queueRows.ts";
import { CliUsageError } from "../cliErrors.ts";
import { type Out, printTable, progress, relativeTime } from "../output.ts";

/**
 * Prints intents as a table, oldest first, with counts per status above it and a legend under
 * it; a live session's intents are grouped under it and edits show as edits (`queueRows`).
 */
export async function queueList(
  store: MessageStateStore,
  filter: { status?: string[]; channel?: string; limit?: number; gatewayUrl?: string },
  out: Out = process.stdout,
): Promise<void> {
  const statuses = filter.status?.map((s) => {
    if (!INTENT_STATUSES.includes(s as IntentStatus)) {
      throw new CliUsageError(`unknown status "${s}"; use one of: ${INTENT_STATUSES.join(", ")}`);
    }
    return s as IntentStatus;
  });
  const counts = await store.countIntents(filter.channel ? { channel: filter.channel } : {});
  out.write(`${INTENT_STATUSES.map((s) => `${s}: ${counts[s]}`).join("  ")}\n`);
  const intents = await store.listIntents({
    ...(statuses ? { statuses } : {}),
    ...(filter.channel ? { channel: filter.channel } : {}),
    limit: filter.limit ?? 50,
  });
  const now = Date.now();
  const rows = queueRows(intents);
  printTable(
    ["id", "status", "op", "channel", "target", "attempt", "next attempt", "last failure", "text"],
    rows.map(({ intent: i, member, status, op }) => [
      member ? `└ ${i.id}` : i.id,
      status,
      op,
      i.channel,
      `${i.message.target.id}${i.message.target.threadId ? `/${i.message.target.threadId}` : ""}`,
      i.attempt,
      i.status === "pending" || i.status === "unknown_after_send"
        ? relativeTime(i.nextAttemptAt, now)
        : "",
      i.failure
        ? `${i.failure.kind}${i.failure.platformCode ? `[${i.failure.platformCode}]` : ""}`
        : "",
      (i.message.body?.markdown ?? "").replace(/\s+/g, " ").slice(0, 40),
    ]),
    out,
  );
  const sessions = rows.filter((r) => r.intent.status === "cancelled" && r.op === "live").length;
  if (sessions > 0)
    out.write(
      `note: ${sessions} of the cancelled intents listed ${sessions === 1 ? "is a finished live session" : "are finished live sessions"} (live: …), not a lost message\n`,
    );
  out.write(`${QUEUE_LEGEND}\n`);
  if (filter.gatewayUrl) {
    const waiting = await gatewayInboundRetries(filter.gatewayUrl);
    if (waiting && waiting.size > 0)
      out.write(
        `inbound waiting for a retry in the gateway at ${filter.gatewayUrl}: ${[...waiting]
          .map(([channel, n]) => `${channel} ${n}`)
          .join(
            ", ",
          )} (they failed before their handler ran, e.g. on a full disk; see ${filter.gatewayUrl}/console/queue)\n`,
      );
  }
}

/**
 * Inbound events waiting for a retry in a running gateway, per channel ([H28] C50), read from its
 * `/metrics` (`herald_inbound_retry_pending`): they live in that process only, because they
 * failed while the store could not be written.
 *
 * @returns undefined when no gateway answers at `url` within `timeoutMs`.
 */
export async function gatewayInboundRetries(
  url: string,
  timeoutMs = 1_000,
): Promise<Map<string, number> | undefined> {
  try {
    const response = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return undefined;
    const waiting = new Map<string, number>();
    for (const [, channel = "", n] of (await response.text()).matchAll(
      /^herald_inbound_retry_pending\{channel="([^"]*)"\} (\d+)$/gm,
    ))
      if (Number(n) > 0) waiting.set(channel, Number(n));
    return waiting;
  } catch {
    return undefined;
  }
}

/** Prints one intent in full (message, batch, receipts, failure), secrets redacted. */
export async function queueShow(
  store: MessageStateStore,
  id: string,
  redact: (text: string) => string,
  out: Out = process.stdout,
): Promise<boolean> {
  const intent = await store.getIntent(id);
  if (!intent) return false;
  out.write(`${intentJson(intent, redact)}\n`);
  return true;
}

export type { BulkResult };

/** Selects ids: the given ones, or every intent of `statuses` (optionally of one channel). */
export async function selectIds(
  store: MessageStateStore,
  ids: string[],
  all: { statuses: IntentStatus[]; channel?: string } | undefined,
): Promise<string[]> {
  if (!all) return ids;
  const found: string[] = [];
  let afterSeq = 0;
  for (;;) {
    const page = await store.listIntents({
      statuses: all.statuses,
      afterSeq,
      limit: 500,
      ...(all.channel ? { channel: all.channel } : {}),
    });
    found.push(...page.map((i) => i.id));
    if (page.length < 500) return found;
    afterSeq = page.at(-1)?.seq ?? afterSeq;
  }
}

/**
 * The status of `herald queue <action> --all <status>`, checked against the status machine.
 *
 * @throws CliUsageError naming the statuses `action` applies to (core's `statusesAllowing`).
 */
export function allStatus(action: OperatorAction, status: string): IntentStatus {
  const allowed = statusesAllowing(action);
  if (!allowed.includes(status as IntentStatus))
    throw new CliUsageError(
      `--all must be one of ${allowed.join(", ")} (what ${action} applies to)`,
    );
  return status as IntentStatus;
}

/**
 * `herald queue retry|cancel`: applies `action` to each id whose status allows it (core's
 * `allowedOperations`), showing progress.
 */
export function queueAct(
  store: MessageStateStore,
  action: OperatorAction,
  ids: string[],
): Promise<BulkResult> {
  return applyOperation(store, action, ids, progress(action, ids.length));
}
