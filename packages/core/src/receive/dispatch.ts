/**
 * Dispatch and commit of one recorded message (seed, "Receive context": dispatch → commit):
 * the handler runs under a renewed dedupe lease; success marks the lease `done` and the record
 * committed, failure releases the lease and marks the record failed. A handler that ends with
 * `DeliveryPendingError` succeeded: its reply is stored and the delivery worker delivers it. Used by fresh deliveries
 * and by recovery alike.
 *
 * Turn ownership (DESIGN §3 "Waiting is durable", §7): a message is complete once its first
 * reply is durable. The commit is written then, and, since a crash may come between the reply's
 * intent and that commit, a dispatch first looks for the reply an earlier run left
 * (`firstReplyKeys`): when it exists the handler is not run again. A recovered dispatch returns
 * once the message is committed: the handler may still wait for its reply's delivery, but it no
 * longer holds a recovery slot.
 *
 * @module
 */

import { asError, describeError } from "../context/errorInfo.ts";
import { DeliveryPendingError } from "../delivery/errors.ts";
import { HeraldError } from "../errors.ts";
import { failpoint } from "../failpoint.ts";
import type { HeraldLogger } from "../logger.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { ReceiveAckPolicy } from "../message/policy.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import type { DedupeKey } from "../state/types.ts";
import type { DedupeLeases } from "./DedupeLeases.ts";
import { ReceiveHandlerError, ReceiveHandlerMissingError } from "./errors.ts";
import { appendMarker } from "./inbox.ts";
import { dedupeKeyString, type InFlightEntry } from "./inflight.ts";
import type { MessageReceiveContext, ReceiveHandler, ReceiveOutcome } from "./types.ts";

/** One dispatch of a recorded message. */
export type DispatchJob = {
  message: ChannelMessage;
  key: DedupeKey;
  policy: ReceiveAckPolicy;
  /** Seq of the inbound record. */
  seq: number;
  attempt: number;
  recovered: boolean;
};

/** What a dispatch needs from the runtime. */
export type DispatchDeps = {
  store: MessageStateStore;
  leases: DedupeLeases;
  clock: () => number;
  log: HeraldLogger;
  /** The handler registered now (it may be set after the runtime was created). */
  handler(): ReceiveHandler | undefined;
  /**
   * Whether an earlier run of this message's handler left a durable reply (then the message is
   * complete and the handler is not run again). A failed lookup runs the handler.
   */
  replied?(message: ChannelMessage): Promise<boolean>;
  /** Keeps a handler that outlives its recovered dispatch tracked (for `drain`). */
  track?(work: Promise<unknown>): void;
};

/**
 * Runs the handler for `entry` (whose lease the caller holds), then commits or releases.
 * Never throws; the outcome says what happened.
 */
export async function dispatchRecorded(
  entry: InFlightEntry,
  job: DispatchJob,
  deps: DispatchDeps,
): Promise<ReceiveOutcome> {
  if (!job.recovered) return runDispatch(entry, job, deps, () => {});
  // Recovery never waits for a reply's delivery: the dispatch is done once the message commits.
  let committed: (outcome: ReceiveOutcome) => void = () => {};
  const early = new Promise<ReceiveOutcome>((resolve) => {
    committed = resolve;
  });
  const run = runDispatch(entry, job, deps, committed);
  deps.track?.(run);
  return Promise.race([run, early]);
}

async function runDispatch(
  entry: InFlightEntry,
  job: DispatchJob,
  deps: DispatchDeps,
  onCommitted: (outcome: ReceiveOutcome) => void,
): Promise<ReceiveOutcome> {
  const { message, key } = job;
  const id = dedupeKeyString(key);
  const log = deps.log.child({ receive: id });
  const controller = new AbortController();
  const renew = setInterval(
    () => {
      deps.leases
        .renew(key)
        .catch(() => false)
        .then((ok) => {
          if (!ok) controller.abort(new Error(`dedupe lease of ${id} lost`));
        });
    },
    Math.max(1, Math.floor(deps.leases.leaseMs / 3)),
  );
  renew.unref();
  const ctx: MessageReceiveContext = {
    id,
    channel: key.channel,
    ...(key.accountId === undefined ? {} : { accountId: key.accountId }),
    input: message,
    event: entry.event,
    dedupeKey: key,
    ackPolicy: job.policy,
    attempt: job.attempt,
    recovered: job.recovered,
    signal: controller.signal,
    log,
    repliesDurable: () => {
      entry.ack.reached("replies_durable");
      // Once a reply is durable the inbound is complete (DESIGN §3 "Waiting is durable"):
      // committed now, a crash while the handler still waits for the delivery does not run it
      // again on recovery (the delivery worker finishes the reply).
      void commit();
    },
  };
  let committing: Promise<{ ok: boolean } | { error: unknown }> | undefined;
  const commit = () => {
    committing ??= (async () => {
      clearInterval(renew);
      try {
        const ok = await deps.leases.complete(key, {
          outcome: "processed",
          eventTypes: entry.event.eventTypes,
          record: job.seq,
        });
        await mark(deps, "inbound/committed", job, undefined);
        if (ok) onCommitted({ status: "processed", key, message, event: entry.event });
        return { ok };
      } catch (error) {
        return { error };
      }
    })();
    return committing;
  };

  try {
    const handler = deps.handler();
    if (!handler) throw new ReceiveHandlerMissingError();
    if (await repliedBefore(deps, message, log)) {
      entry.ack.reached("replies_durable");
      log.info(
        { attempt: job.attempt, recovered: job.recovered },
        "an earlier run's reply is durable: the message is complete, its handler is not run again",
      );
    } else {
      try {
        await handler(ctx);
      } catch (cause) {
        // The reply is durable and still being delivered (DESIGN §3 "Waiting is durable"): the
        // inbound is complete. Running the handler again (an LLM call, a tool with side effects)
        // would only repeat its work; the delivery worker finishes the reply.
        if (!(cause instanceof DeliveryPendingError)) throw cause;
        entry.ack.reached("replies_durable");
        log.info(
          { intentId: cause.intent.id, status: cause.intent.status, attempt: job.attempt },
          "reply stored but not delivered yet; the inbound message is complete",
        );
      }
    }
    failpoint("receive.after_dispatch");
  } catch (cause) {
    if (committing) {
      // Committed when its reply became durable: the handler is not run again.
      log.warn(
        { error: describeError(cause), attempt: job.attempt },
        "handler failed after its reply was durable; the inbound stays complete",
      );
    } else {
      clearInterval(renew);
      const error =
        cause instanceof HeraldError
          ? cause
          : new ReceiveHandlerError(key.channel, key.eventId, cause);
      await deps.leases.release(key);
      await mark(deps, "inbound/failed", job, error.message);
      entry.end("released");
      log.warn(
        { error: describeError(error), attempt: job.attempt },
        "dispatch failed; lease released",
      );
      return { status: "failed", error, key, acked: entry.ack.answered, recorded: true };
    }
  }

  const committed = await commit();
  try {
    if ("error" in committed) throw committed.error;
    if (!committed.ok)
      log.warn({}, "dedupe lease lost before commit: another owner may process it again");
    failpoint("receive.after_commit");
  } catch (error) {
    // The handler ran but the store did not take the commit. Keep the lease (it expires, and
    // recovery re-dispatches the record then: at-least-once while the store is failing) and
    // answer duplicates parked here rather than run the handler again right away.
    entry.end("done");
    log.error({ error: describeError(error) }, "commit failed after dispatch");
    return {
      status: "failed",
      error: asError(error),
      key,
      acked: entry.ack.answered,
      recorded: true,
    };
  }
  entry.end("done");
  entry.ack.reached("committed");
  log.info({ eventTypes: entry.event.eventTypes, attempt: job.attempt }, "inbound processed");
  return { status: "processed", key, message, event: entry.event };
}

/** Whether an earlier run left a durable reply; a failed lookup says no (the handler runs). */
async function repliedBefore(
  deps: DispatchDeps,
  message: ChannelMessage,
  log: HeraldLogger,
): Promise<boolean> {
  if (!deps.replied) return false;
  try {
    return await deps.replied(message);
  } catch (error) {
    log.warn({ error: describeError(error) }, "could not look for an earlier run's reply");
    return false;
  }
}

/** Appends a marker for the job's record; a failed write only costs recovery a lookup. */
async function mark(
  deps: DispatchDeps,
  type: "inbound/committed" | "inbound/failed",
  job: DispatchJob,
  error: string | undefined,
): Promise<void> {
  try {
    await appendMarker(
      deps.store,
      job.key.channel,
      type,
      { ref: job.seq, key: dedupeKeyString(job.key), ...(error === undefined ? {} : { error }) },
      deps.clock(),
    );
  } catch (e) {
    deps.log.warn({ key: job.key, error: describeError(e) }, `could not write ${type} marker`);
  }
}
