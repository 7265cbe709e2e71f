/**
 * Live recovery: finishes or cleans up live sessions whose process died (seed "Live context":
 * "live state is durable enough to recover or suppress duplicates"). It runs at
 * `runtime.start()`, then every `recoveryIntervalMs`, and looks at live intents whose lease
 * lapsed (or was held by an earlier incarnation of this `workerId`):
 *
 * - a final exists and was **sent** → delete the previews it did not reuse (never before);
 * - a final exists and **failed** or was cancelled → previews follow `onCancel`;
 * - a final exists and is still queued → wait for the next pass;
 * - a native stream was being finished → finish it again (idempotent) and record the final;
 * - no final (the crash hit while streaming; its text is unknown) → previews follow
 *   `onRecover`: `delete` them (default), or `keep` them as the message — recorded as the
 *   final under the session's key, so a re-run with the same key does not answer twice.
 *
 * A preview send that was in flight at the crash is first looked up with the adapter's
 * `reconcileUnknownSend`, once its settle delay has passed; until then, or while a best-effort
 * lookup finds nothing, the intent is left `waiting` for the next pass. Recovery never sends a final itself: no duplicate finals.
 *
 * @module
 */
import type { DeliveryDeps } from "../delivery/deps.ts";
import type { DurableSendIntent } from "../message/intent.ts";
import { IntentConflictError } from "../state/errors.ts";
import { completeAfterFinal, endWithoutFinal } from "./cleanup.ts";
import { type LiveEnv, LiveRef } from "./env.ts";
import { finishInPlace } from "./native.ts";
import { isLiveRecord, type LiveRecord } from "./record.ts";
import type { LiveRecoveryReport } from "./types.ts";

/** What recovery did with one live intent. */
export type LiveRecoveryOutcome = "finalized" | "deleted" | "kept" | "waiting" | "skipped";

const PAGE = 200;

/** True when no live process holds the intent's lease. */
export function leaseGone(deps: DeliveryDeps, intent: DurableSendIntent): boolean {
  const owner = intent.leaseOwner;
  return (
    owner === undefined ||
    (intent.leaseExpiresAt ?? 0) <= deps.clock() ||
    (owner.startsWith(`${deps.workerId}:`) && owner !== deps.owner)
  );
}

async function finalOf(env: LiveEnv, record: LiveRecord): Promise<DurableSendIntent | undefined> {
  const keys = [...new Set([record.finalKey, record.key].filter((k): k is string => !!k))];
  const found: DurableSendIntent[] = [];
  for (const key of keys) {
    const intent = await env.deps.store.getIntentByIdempotencyKey(key);
    if (intent) found.push(intent);
  }
  return found.find((i) => i.status === "sent") ?? found[0];
}

/**
 * Recovers one live intent: takes its lease, then finishes or cleans up per the rules above.
 * Skips it when another process took it first.
 */
export async function recoverLiveIntent(
  env: LiveEnv,
  intent: DurableSendIntent,
): Promise<LiveRecoveryOutcome> {
  const { deps } = env;
  const adapter = deps.adapterFor(intent.channel, intent.accountId);
  if (!adapter || !isLiveRecord(intent.liveState) || intent.status !== "pending") return "skipped";
  try {
    await deps.store.updateIntent(
      intent.id,
      { status: "pending", ...(intent.leaseOwner ? { owner: intent.leaseOwner } : {}) },
      { lease: { owner: deps.owner, expiresAt: deps.clock() + deps.options.leaseMs } },
    );
  } catch (error) {
    if (error instanceof IntentConflictError) return "skipped";
    throw error;
  }
  const ref = new LiveRef({
    env,
    adapter,
    intentId: intent.id,
    base: intent.message,
    record: structuredClone(intent.liveState),
    turnId: intent.turnId,
  });
  ref.log.warn({ phase: ref.record.phase }, "recovering a live session left by a stopped process");
  const final = await finalOf(env, ref.record);
  if (final?.status === "sent") {
    const receipt = final.receipt ?? { platformMessageIds: [], parts: [], sentAt: final.updatedAt };
    return (await completeAfterFinal(ref, receipt)) ? "finalized" : "waiting";
  }
  if (final && final.status !== "failed" && final.status !== "cancelled") {
    await ref.release();
    return "waiting";
  }
  if (!final && ref.record.phase === "finalizing" && ref.record.nativeFinal !== undefined) {
    const shown = ref.record.nativeShown ?? { text: "", exact: false };
    const receipt = await finishInPlace(ref, ref.record.key, {
      markdown: ref.record.nativeFinal,
      shown: shown.text,
      shownExact: shown.exact,
    });
    if (receipt) return (await completeAfterFinal(ref, receipt)) ? "finalized" : "waiting";
  }
  const policy =
    final || ref.record.phase === "cancelling" ? ref.record.onCancel : ref.record.onRecover;
  const outcome = await endWithoutFinal(ref, policy);
  return outcome === "incomplete" ? "waiting" : outcome;
}

/**
 * One recovery pass over live intents nobody holds.
 *
 * @param budgetMs - stop after this long; the next pass continues.
 */
export async function recoverLive(env: LiveEnv, budgetMs: number): Promise<LiveRecoveryReport> {
  const { deps } = env;
  const started = deps.clock();
  const report: LiveRecoveryReport = {
    finalized: 0,
    deleted: 0,
    kept: 0,
    waiting: 0,
    complete: true,
  };
  let afterSeq = 0;
  for (;;) {
    if (deps.clock() - started > budgetMs) return { ...report, complete: false };
    // Live intents are held with a far `nextAttemptAt`: this keeps the page small.
    const page = await deps.store.listIntents({
      statuses: ["pending"],
      nextAttemptAfter: deps.clock(),
      afterSeq,
      limit: PAGE,
    });
    for (const intent of page) {
      if (!isLiveRecord(intent.liveState) || !leaseGone(deps, intent)) continue;
      try {
        const outcome = await recoverLiveIntent(env, intent);
        if (outcome !== "skipped") report[outcome] += 1;
      } catch (error) {
        deps.logger.error(
          { intentId: intent.id, err: error },
          "live recovery failed; retried later",
        );
        report.waiting += 1;
        await deps.store.releaseLease(intent.id, deps.owner).catch(() => false);
      }
    }
    if (page.length < PAGE) break;
    afterSeq = page.at(-1)?.seq ?? afterSeq;
  }
  return report;
}
