/**
 * Recovery (DESIGN §3–4; seed "Internal storage", recovery loop). Runs at startup within a time
 * budget and then periodically, never consuming attempts:
 * - `sending` whose worker is gone (lease expired, or left by an earlier incarnation of this
 *   `workerId`) → `unknown_after_send`, never blindly back to `pending`;
 * - `committing` whose worker is gone → `sent` (the raw receipt is already stored);
 * - `pending` or `unknown_after_send` leased by an earlier incarnation of this `workerId` → the
 *   lease released (its attempt made no call, or only a reconcile lookup);
 * - a `pending` intent scheduled implausibly far ahead (clock skew) → due now.
 *
 * @module
 */
import type { DeliveryFailure } from "../message/failure.ts";
import { IntentConflictError } from "../state/errors.ts";
import type { DeliveryDeps } from "./deps.ts";
import { nextUnknownCheckAt } from "./gate.ts";

/** What one recovery pass did. */
export type RecoveryReport = {
  toUnknown: number;
  committed: number;
  skewRepaired: number;
  /**
   * `pending` and `unknown_after_send` intents an earlier incarnation of this worker had leased
   * (no platform call of theirs in flight), released at once.
   */
  released: number;
  /** False when the time budget ran out before everything was looked at. */
  complete: boolean;
};

const PAGE = 200;

/**
 * One recovery pass.
 *
 * @param budgetMs - stop after this long; the next pass continues.
 */
export async function recoverStale(deps: DeliveryDeps, budgetMs: number): Promise<RecoveryReport> {
  const { store, clock } = deps;
  const started = clock();
  const report: RecoveryReport = {
    toUnknown: 0,
    committed: 0,
    skewRepaired: 0,
    released: 0,
    complete: true,
  };
  // Never this process's own lease: its attempt is still running (a stalled event loop can let
  // the lease lapse before the renewal fires; replaying it here would duplicate the message).
  const gone = (owner: string | undefined, expiresAt: number | undefined, now: number) =>
    owner !== deps.owner &&
    (owner === undefined || (expiresAt ?? 0) <= now || owner.startsWith(`${deps.workerId}:`));
  const overBudget = () => clock() - started > budgetMs;

  for (const status of ["sending", "committing"] as const) {
    let afterSeq = 0;
    for (;;) {
      if (overBudget()) return { ...report, complete: false };
      const page = await store.listIntents({ statuses: [status], afterSeq, limit: PAGE });
      if (page.length === 0) break;
      afterSeq = page.at(-1)?.seq ?? afterSeq;
      const now = clock();
      for (const intent of page) {
        if (!gone(intent.leaseOwner, intent.leaseExpiresAt, now)) continue;
        try {
          if (status === "sending") {
            const failure: DeliveryFailure = {
              kind: "unknown",
              evidence: "maybe_sent",
              message: `worker ${intent.leaseOwner ?? "?"} stopped while sending (crash or lost lease)`,
              at: now,
              attempt: intent.attempt,
            };
            // Due after the replay gate (and the settle delay when it will be reconciled).
            const adapter = deps.adapterFor(intent.channel, intent.accountId);
            const dueAt = nextUnknownCheckAt(deps, adapter, intent, failure, now);
            await store.transitionIntents([
              {
                id: intent.id,
                from: "sending",
                to: "unknown_after_send",
                patch: {
                  failure: withEarlierDoubt(intent, failure),
                  nextAttemptAt: dueAt,
                  lease: "release",
                },
              },
            ]);
            report.toUnknown += 1;
          } else {
            await store.transitionIntents([
              {
                id: intent.id,
                from: "committing",
                to: "sent",
                patch: { partialReceipt: null, failure: null },
              },
            ]);
            report.committed += 1;
          }
          deps.logger.warn(
            { intentId: intent.id, channel: intent.channel, from: status },
            "recovered an intent left by a stopped worker",
          );
        } catch (error) {
          if (!(error instanceof IntentConflictError)) throw error; // someone else moved it
        }
      }
      if (page.length < PAGE) break;
    }
  }

  // A `pending` intent an earlier incarnation of this worker had leased (claimed by an inline
  // send, or waiting for a delivery slot or rate-limit tokens) made no platform call: release
  // it now instead of letting it wait out the dead process's lease. The same for an
  // `unknown_after_send` one: while it has that status its attempt only reads (a reconcile
  // lookup; a resend first makes it `pending`, then `sending`), or it was leased ahead and waits
  // for a slot. Left leased, it kept the later messages of its chat waiting too (Discord chat
  // bench: 150 messages took 34 s instead of 15 s in one run of two after the SIGKILL).
  for (const status of ["pending", "unknown_after_send"] as const) {
    let afterSeq = 0;
    for (;;) {
      if (overBudget()) return { ...report, complete: false };
      const page = await store.listIntents({ statuses: [status], afterSeq, limit: PAGE });
      if (page.length === 0) break;
      afterSeq = page.at(-1)?.seq ?? afterSeq;
      for (const intent of page) {
        const owner = intent.leaseOwner;
        if (owner === undefined || owner === deps.owner) continue;
        if (!owner.startsWith(`${deps.workerId}:`)) continue;
        if (await store.releaseLease(intent.id, owner)) report.released += 1;
      }
      if (page.length < PAGE) break;
    }
  }

  const horizon = clock() + deps.options.maxScheduleAheadMs;
  let afterSeq = 0;
  for (;;) {
    if (overBudget()) return { ...report, complete: false };
    const page = await store.listIntents({
      statuses: ["pending"],
      nextAttemptAfter: horizon,
      afterSeq,
      limit: PAGE,
    });
    if (page.length === 0) break;
    afterSeq = page.at(-1)?.seq ?? afterSeq;
    for (const intent of page) {
      if ((intent.nextAttemptAt ?? 0) <= horizon) continue; // never trust the filter blindly
      try {
        await store.updateIntent(intent.id, { status: "pending" }, { nextAttemptAt: clock() });
        report.skewRepaired += 1;
        deps.logger.warn(
          { intentId: intent.id, nextAttemptAt: intent.nextAttemptAt },
          "nextAttemptAt implausibly far ahead (clock skew?): made due now",
        );
      } catch (error) {
        if (!(error instanceof IntentConflictError)) throw error;
      }
    }
    if (page.length < PAGE) break;
  }
  return report;
}

/** A crash during `sending` leaves the unit in doubt since the earliest unsettled outcome. */
function withEarlierDoubt(
  intent: { failure?: DeliveryFailure },
  failure: DeliveryFailure,
): DeliveryFailure {
  return { ...failure, inDoubtSince: intent.failure?.inDoubtSince ?? failure.at ?? 0 };
}
