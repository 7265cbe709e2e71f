/**
 * Recovery (DESIGN §3–4, §12; seed "Internal storage", recovery loop). Runs at startup and then
 * periodically, never consuming attempts:
 * - `sending` whose worker is gone (lease expired, or left by an earlier incarnation of this
 *   `workerId`) → `unknown_after_send`, never blindly back to `pending`;
 * - `committing` whose worker is gone → `sent` (the raw receipt is already stored);
 * - `pending` or `unknown_after_send` leased by an earlier incarnation of this `workerId` → the
 *   lease released (its attempt made no call, or only a reconcile lookup);
 * - a `pending` intent scheduled implausibly far ahead (clock skew) → due now.
 *
 * **Incremental** ([H25], C53). A pass reads only intents it may have to repair, each kind
 * through an index: `sending` and `committing` by status (a handful: the calls in flight),
 * leased `pending`/`unknown_after_send` through `intents_leased` (the intents leased right now),
 * skewed ones through `intents_due` from the horizon (`store.listRecoveryCandidates`). None
 * of them walks the pending backlog: at 100k pending a pass reads the few intents in flight.
 * A pass is **bounded** (`budgetMs`, and at most `maxRows` rows read) and **resumable**: it
 * continues from its {@link RecoveryCursor} (the phase and the last `seq` looked at), so a
 * pass cut off at its bound is continued by the next, never started again from the beginning.
 *
 * @module
 */
import type { DeliveryFailure } from "../message/failure.ts";
import type { DurableSendIntent } from "../message/intent.ts";
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
  /**
   * Intents the pass read from the store: the candidates only (DESIGN §12), never the pending
   * backlog.
   */
  rowsRead: number;
  /**
   * False when the pass stopped at its bound (`budgetMs` or `maxRows`) before it looked at
   * everything; the next pass continues from where it stopped.
   */
  complete: boolean;
};

/** The phases of a pass, in order. */
const PHASES = ["sending", "committing", "leased", "skewed"] as const;

/** Where a pass stopped: the next one continues there. Starts at `{ phase: 0, afterSeq: 0 }`. */
export type RecoveryCursor = { phase: number; afterSeq: number };

/** A cursor at the beginning of a pass. */
export function newRecoveryCursor(): RecoveryCursor {
  return { phase: 0, afterSeq: 0 };
}

/** Rows one store read asks for. */
const PAGE = 200;

/** The bounds of one pass. */
export type RecoveryBounds = {
  /** Stop after this long (ms on `deps.clock`); the next pass continues. */
  budgetMs: number;
  /** Stop after reading this many rows; the next pass continues. @defaultValue unbounded */
  maxRows?: number;
  /** Where to start; advanced in place. @defaultValue a new cursor (the whole pass) */
  cursor?: RecoveryCursor;
};

/**
 * One recovery pass, from `bounds.cursor` until it looked at everything (`complete`, the cursor
 * back at the start) or hit a bound (the cursor says where the next pass continues).
 */
export async function recoverStale(
  deps: DeliveryDeps,
  bounds: RecoveryBounds,
): Promise<RecoveryReport> {
  const { store, clock } = deps;
  const started = clock();
  const cursor = bounds.cursor ?? newRecoveryCursor();
  const maxRows = bounds.maxRows ?? Number.POSITIVE_INFINITY;
  const report: RecoveryReport = {
    toUnknown: 0,
    committed: 0,
    skewRepaired: 0,
    released: 0,
    rowsRead: 0,
    complete: true,
  };
  const horizon = clock() + deps.options.maxScheduleAheadMs;
  let pages = 0;
  while (cursor.phase < PHASES.length) {
    // Every pass reads at least one page: passes cut at any bound still make progress.
    if (pages > 0 && (clock() - started > bounds.budgetMs || report.rowsRead >= maxRows)) {
      return { ...report, complete: false };
    }
    pages += 1;
    const phase = PHASES[cursor.phase] as (typeof PHASES)[number];
    const limit = Math.max(1, Math.min(PAGE, maxRows - report.rowsRead));
    const page =
      phase === "sending" || phase === "committing"
        ? await store.listIntents({ statuses: [phase], afterSeq: cursor.afterSeq, limit })
        : phase === "leased"
          ? await store.listRecoveryCandidates({ kind: "leased", afterSeq: cursor.afterSeq, limit })
          : await store.listRecoveryCandidates({ kind: "skewed", dueAfter: horizon, limit });
    report.rowsRead += page.length;
    let repaired = 0;
    for (const intent of page) {
      if (await repair(deps, phase, intent, horizon, report)) repaired += 1;
    }
    // The skewed ones leave the index range once repaired (no seq order there): a full page
    // none of which was repaired ends the phase instead of reading it again.
    const more = page.length === limit && (phase !== "skewed" || repaired > 0);
    if (more) {
      cursor.afterSeq = page.at(-1)?.seq ?? cursor.afterSeq;
    } else {
      cursor.phase += 1;
      cursor.afterSeq = 0;
    }
  }
  cursor.phase = 0;
  cursor.afterSeq = 0;
  return report;
}

/** Repairs one candidate of `phase` when it needs it. @returns true when it changed it. */
async function repair(
  deps: DeliveryDeps,
  phase: (typeof PHASES)[number],
  intent: DurableSendIntent,
  horizon: number,
  report: RecoveryReport,
): Promise<boolean> {
  const { store, clock } = deps;
  const now = clock();
  try {
    if (phase === "sending" || phase === "committing") {
      if (!gone(deps, intent.leaseOwner, intent.leaseExpiresAt, now)) return false;
      if (phase === "sending") {
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
        { intentId: intent.id, channel: intent.channel, from: phase },
        "recovered an intent left by a stopped worker",
      );
      return true;
    }
    if (phase === "leased") {
      // A `pending` intent an earlier incarnation of this worker had leased (claimed by an
      // inline send, or waiting for a delivery slot or rate-limit tokens) made no platform
      // call: release it now instead of letting it wait out the dead process's lease. The same
      // for an `unknown_after_send` one: while it has that status its attempt only reads (a
      // reconcile lookup; a resend first makes it `pending`, then `sending`), or it was leased
      // ahead and waits for a slot. Left leased, it kept the later messages of its chat
      // waiting too (Discord chat bench: 150 messages took 34 s instead of 15 s in one run of
      // two after the SIGKILL).
      const owner = intent.leaseOwner;
      if (intent.status !== "pending" && intent.status !== "unknown_after_send") return false;
      if (owner === undefined || owner === deps.owner) return false;
      if (!owner.startsWith(`${deps.workerId}:`)) return false;
      if (!(await store.releaseLease(intent.id, owner))) return false;
      report.released += 1;
      return true;
    }
    if (intent.status !== "pending" || (intent.nextAttemptAt ?? 0) <= horizon) return false;
    await store.updateIntent(intent.id, { status: "pending" }, { nextAttemptAt: clock() });
    report.skewRepaired += 1;
    deps.logger.warn(
      { intentId: intent.id, nextAttemptAt: intent.nextAttemptAt },
      "nextAttemptAt implausibly far ahead (clock skew?): made due now",
    );
    return true;
  } catch (error) {
    if (!(error instanceof IntentConflictError)) throw error; // someone else moved it
    return false;
  }
}

/**
 * True when the worker that holds an intent is gone: no lease, a lapsed one, or one of an
 * earlier incarnation of this `workerId`. Never this process's own lease: its attempt is still
 * running (a stalled event loop can let the lease lapse before the renewal fires; replaying it
 * here would duplicate the message).
 */
function gone(
  deps: DeliveryDeps,
  owner: string | undefined,
  expiresAt: number | undefined,
  now: number,
): boolean {
  return (
    owner !== deps.owner &&
    (owner === undefined || (expiresAt ?? 0) <= now || owner.startsWith(`${deps.workerId}:`))
  );
}

/** A crash during `sending` leaves the unit in doubt since the earliest unsettled outcome. */
function withEarlierDoubt(
  intent: { failure?: DeliveryFailure },
  failure: DeliveryFailure,
): DeliveryFailure {
  return { ...failure, inDoubtSince: intent.failure?.inDoubtSince ?? failure.at ?? 0 };
}
