/**
 * How `herald queue ls` shows intents: a live session (a streamed reply) is one group — its
 * session record first, then the intents under its key (the final, a fresh final after a lost
 * preview, cleanups), indented — and each row names its operation, so an edit of a visible
 * message never reads as a second send.
 *
 * @module
 */
import { type DurableSendIntent, isHeldForOperator, isLiveRecord } from "@herald/core";

/** One intent placed for display: its group and how its status and operation read. */
export type QueueRow = {
  intent: DurableSendIntent;
  /** True for intents shown under their live session. */
  member: boolean;
  status: string;
  op: string;
};

/** The legend printed under the table. */
export const QUEUE_LEGEND = [
  "legend:",
  "  op       send = a new message · edit #id = changes visible message id in place (no new message) · delete #id · live = a live session",
  '  └        belongs to the live session above: a streamed reply\'s final (":fresh" when its preview was lost) and cleanups',
  "  live: streaming    the reply is being streamed (the session is parked, leased by its worker)",
  '  live: finalized    the final was delivered; the session record itself ends as status cancelled ("live supersede"), nothing was lost',
  "  live: cancelled | kept | deleted    the session ended without a final (its previews were cancelled, kept or deleted)",
  "  (held)   unknown_after_send waiting for an operator: herald queue retry <id> | cancel <id>",
  "  expired  not sent: older than its maxAgeMs when its turn came (herald queue retry <id> sends it anyway)",
].join("\n");

function statusOf(i: DurableSendIntent): string {
  if (isLiveRecord(i.liveState)) {
    const record = i.liveState;
    if (i.status === "pending" || i.status === "sending")
      return record.phase === "streaming" ? "live: streaming" : `live: ${record.phase}`;
    if (i.status === "cancelled") return `live: ${record.outcome ?? "ended"}`;
    return `live: ${i.status}`;
  }
  return isHeldForOperator(i) ? "unknown_after_send (held)" : i.status;
}

function opOf(i: DurableSendIntent): string {
  if (isLiveRecord(i.liveState)) return "live";
  const op = i.operation;
  if (op.kind === "send") return "send";
  if (op.kind === "reaction")
    return `${op.remove ? "unreact" : "react"} ${op.emoji} #${op.messageId}`;
  const id = op.receipt.primaryPlatformMessageId ?? op.receipt.platformMessageIds[0];
  return id ? `${op.kind} #${id}` : op.kind;
}

function sessionKeyOf(intent: DurableSendIntent, keys: readonly string[]): string | undefined {
  return keys.find((k) => intent.idempotencyKey === k || intent.idempotencyKey.startsWith(`${k}:`));
}

/**
 * Orders intents (given oldest first) into display rows: each live session's record, then the
 * listed intents under its key; everything else in order.
 */
export function queueRows(intents: readonly DurableSendIntent[]): QueueRow[] {
  const sessions = new Map<string, DurableSendIntent>();
  for (const i of intents) if (isLiveRecord(i.liveState)) sessions.set(i.liveState.key, i);
  const keys = [...sessions.keys()];
  const members = new Map<string, DurableSendIntent[]>();
  const top: DurableSendIntent[] = [];
  for (const i of intents) {
    const key = isLiveRecord(i.liveState) ? undefined : sessionKeyOf(i, keys);
    if (key === undefined) top.push(i);
    else members.set(key, [...(members.get(key) ?? []), i]);
  }
  const rows: QueueRow[] = [];
  for (const i of top) {
    rows.push({ intent: i, member: false, status: statusOf(i), op: opOf(i) });
    if (!isLiveRecord(i.liveState)) continue;
    for (const m of members.get(i.liveState.key) ?? [])
      rows.push({ intent: m, member: true, status: statusOf(m), op: opOf(m) });
  }
  return rows;
}

export { statusOf as displayStatus };
