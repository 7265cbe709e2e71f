/**
 * An intent's attempt timeline for the console: the durable facts the store keeps (created,
 * first dispatch of each unit, the last failure with its kind × evidence, in doubt since,
 * receipt, last update) merged with the attempts this gateway process saw settle (the store
 * keeps only the latest failure, so earlier attempts of an intent delivered by another process
 * show only through their durable traces).
 *
 * @module
 */
import type { DeliveryEvent, DurableSendIntent } from "@herald/core";

/** One line of the timeline. */
export type TimelineEntry = {
  /** Epoch ms. */
  at: number;
  /** `created`, `dispatch`, `attempt`, `failure`, `in_doubt`, `sent`, `updated`. */
  what: string;
  /** The attempt number, when the entry is an attempt. */
  attempt?: number;
  kind?: string;
  evidence?: string;
  detail?: string;
  /** True for entries observed by this process (not stored). */
  observed?: boolean;
};

type Observed = {
  at: number;
  attempt: number;
  status: string;
  kind?: string;
  evidence?: string;
  detail?: string;
};

/** The attempts this process saw settle, per intent id (bounded: the latest `maxIntents`). */
export class AttemptLog {
  readonly #byIntent = new Map<string, Observed[]>();
  readonly #maxIntents: number;
  readonly #maxPerIntent: number;

  constructor(maxIntents = 2_000, maxPerIntent = 20) {
    this.#maxIntents = maxIntents;
    this.#maxPerIntent = maxPerIntent;
  }

  /** Records a delivery worker event (only `settled` ones matter). */
  record(event: DeliveryEvent, at: number): void {
    if (event.type !== "settled") return;
    const i = event.intent;
    const list = this.#byIntent.get(i.id) ?? [];
    this.#byIntent.delete(i.id);
    const entry: Observed = {
      at,
      attempt: i.attempt,
      status: i.status,
      ...(i.failure
        ? { kind: i.failure.kind, evidence: i.failure.evidence, detail: i.failure.message }
        : {}),
    };
    // One attempt settling twice in the same status (an in-doubt send, then the hold policy
    // deciding it) is one line: the later, fuller one.
    const last = list.at(-1);
    if (last && last.attempt === entry.attempt && last.status === entry.status) list.pop();
    list.push(entry);
    this.#byIntent.set(i.id, list.slice(-this.#maxPerIntent));
    if (this.#byIntent.size > this.#maxIntents) {
      const oldest = this.#byIntent.keys().next().value;
      if (oldest !== undefined) this.#byIntent.delete(oldest);
    }
  }

  /** The attempts seen for one intent, oldest first. */
  of(id: string): readonly Observed[] {
    return this.#byIntent.get(id) ?? [];
  }
}

/** Statuses in which no attempt is under way: the intent's count is its last attempt's. */
const AT_REST: readonly DurableSendIntent["status"][] = [
  "pending",
  "unknown_after_send",
  "failed",
  "cancelled",
  "expired",
];

/** The timeline of one intent, oldest first. */
export function timelineOf(intent: DurableSendIntent, log: AttemptLog): TimelineEntry[] {
  const entries: TimelineEntry[] = [{ at: intent.createdAt, what: "created" }];
  for (const [unit, at] of Object.entries(intent.firstDispatchAt ?? {}))
    entries.push({ at, what: "dispatch", detail: `first platform call of unit ${unit}` });
  for (const o of log.of(intent.id)) {
    entries.push({
      at: o.at,
      what: "attempt",
      attempt: o.attempt,
      ...(o.kind ? { kind: o.kind } : {}),
      ...(o.evidence ? { evidence: o.evidence } : {}),
      detail: `→ ${o.status}${o.detail ? `: ${o.detail}` : ""}`,
      observed: true,
    });
  }
  const f = intent.failure;
  if (f) {
    // The attempt that failed: stored with the failure; for a failure stored by an older
    // version, the intent's count only while no later attempt has started.
    const attempt = f.attempt ?? (AT_REST.includes(intent.status) ? intent.attempt : undefined);
    if (f.inDoubtSince !== undefined)
      entries.push({ at: f.inDoubtSince, what: "in_doubt", detail: "outcome unknown since" });
    entries.push({
      at: f.at ?? intent.updatedAt,
      what: "failure",
      ...(attempt !== undefined ? { attempt } : {}),
      kind: f.kind,
      evidence: f.evidence,
      detail: `${f.platformCode ? `[${f.platformCode}] ` : ""}${f.message}${f.unresolvedChecks ? ` (${f.unresolvedChecks} unresolved reconcile checks)` : ""}`,
    });
  }
  if (intent.status === "sent")
    entries.push({ at: intent.updatedAt, what: "sent", detail: "receipt committed" });
  else entries.push({ at: intent.updatedAt, what: "updated", detail: `status ${intent.status}` });
  return entries.sort((a, b) => a.at - b.at);
}
