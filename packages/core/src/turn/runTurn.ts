/**
 * The lifecycle of one turn (seed `threaded-activity-log.md`, "1. turnId in the daemon"):
 * `turn/start` (+ the user node) → the handler in its scope → everything it spawned settles →
 * `turn/end` with the outcome, or the watchdog TTL runs out first → `turn/end interrupted`.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { describeError } from "../context/errorInfo.ts";
import { runInFrame, type TurnFrame, TurnState } from "../context/scope.ts";
import { DeliveryPendingError } from "../delivery/errors.ts";
import type { LiveTimers } from "../live/types.ts";
import type { HeraldLogger } from "../logger.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import type { NewLedgerEvent } from "../state/types.ts";
import { TurnInterruptedError } from "./errors.ts";
import {
  conversationOf,
  endEvent,
  messageEvent,
  sweepStaleTurns,
  type TurnEndData,
  type TurnStartData,
} from "./ledger.ts";
import {
  TURN_EVENT,
  type Turn,
  type TurnInput,
  type TurnLifecycleEvent,
  type TurnMessage,
  type TurnOptions,
  type TurnOutcome,
} from "./types.ts";

/** What one turn run needs from the turn runtime. */
export type TurnRunDeps = {
  store: MessageStateStore;
  clock: () => number;
  log: HeraldLogger;
  timers: LiveTimers;
  watchdogMs: number;
  sweepWindow: number;
  /** Turns running in this process, by id. */
  running: Map<string, TurnState>;
  emit(event: TurnLifecycleEvent): Promise<void>;
  /** Builds the handle the callback gets. */
  handle(state: TurnState, frame: TurnFrame): Turn;
};

/** Splits a `runtime.turn` input into the root message and its signal. */
export function rootOf(input: TurnInput): { root: ChannelMessage; signal?: AbortSignal } {
  if ("input" in input) {
    return { root: input.input, ...(input.signal ? { signal: input.signal } : {}) };
  }
  return { root: input };
}

type Settled<T> =
  | { kind: "settled"; value?: T; failed: boolean; error?: unknown }
  | { kind: "watchdog" };

/**
 * Runs a root turn.
 *
 * @throws StoreUnavailableError when `turn/start` cannot be written (the handler is not run).
 * @throws TurnInterruptedError when the watchdog TTL ran out first.
 * @throws the handler's error, or the first error of spawned work (after `turn/end`). A
 *   `DeliveryPendingError` is rethrown too, but the turn ends `completed` (reason
 *   `delivery_pending`): the reply is stored and the delivery worker finishes it.
 */
export async function runRootTurn<T>(
  deps: TurnRunDeps,
  input: TurnInput,
  fn: (turn: Turn) => Promise<T> | T,
  options: TurnOptions,
): Promise<T> {
  const { root, signal: inputSignal } = rootOf(input);
  const signals = [inputSignal, options.signal].filter((s): s is AbortSignal => s !== undefined);
  const turnId = options.turnId ?? randomUUID();
  const conversation = options.conversation ?? conversationOf(root);
  const watchdogMs = options.watchdogMs ?? deps.watchdogMs;
  const state = new TurnState({
    turnId,
    conversation,
    root,
    signal: signals.length > 1 ? AbortSignal.any(signals) : signals[0],
  });
  const log = deps.log.child({ turnId, conversation });

  const startAt = deps.clock();
  const startData: TurnStartData = {
    rootMessageId: root.id,
    channel: root.channel,
    target: root.target,
    watchdogMs,
    ...(root.accountId === undefined ? {} : { accountId: root.accountId }),
    ...(root.platformMessageId === undefined ? {} : { platformMessageId: root.platformMessageId }),
  };
  const userNode: TurnMessage = {
    id: randomUUID(),
    at: startAt,
    turnId,
    role: "user",
    text: root.body?.markdown ?? "",
    messageId: root.id,
    channel: root.channel,
    target: root.target,
    ...(root.accountId === undefined ? {} : { accountId: root.accountId }),
  };
  const [start] = await deps.store.appendLedger([
    { conversation, type: TURN_EVENT.start, turnId, at: startAt, data: startData },
    messageEvent(conversation, userNode),
  ]);
  if (!start) throw new Error("appendLedger returned no event");
  deps.running.set(turnId, state);
  await sweepStaleTurns(deps.store, conversation, start.seq, deps.sweepWindow, startAt, (id) =>
    deps.running.has(id),
  ).then(
    (closed) => {
      if (closed.length > 0) log.warn({ closed }, "closed turns left open by a dead process");
    },
    (error: unknown) => log.warn({ error: describeError(error) }, "stale-turn sweep failed"),
  );
  await deps.emit({ type: "started", turnId, conversation, root, seq: start.seq, at: startAt });
  log.info({ seq: start.seq }, "turn started");

  const frame: TurnFrame = { state, depth: 0 };
  const work = runInFrame(frame, async () => fn(deps.handle(state, frame)));
  let fire: (value: Settled<T>) => void = () => {};
  const first = new Promise<Settled<T>>((resolve) => {
    fire = resolve;
  });
  const timer = deps.timers.setTimeout(() => fire({ kind: "watchdog" }), watchdogMs);
  (timer as { unref?: () => void } | undefined)?.unref?.();
  work.then(
    async (value) => {
      await state.settled();
      fire({ kind: "settled", value, failed: false });
    },
    async (error: unknown) => {
      await state.settled();
      fire({ kind: "settled", failed: true, error });
    },
  );
  const settled = await first;
  deps.timers.clearTimeout(timer);

  if (settled.kind === "watchdog") {
    const interrupted = new TurnInterruptedError(turnId, watchdogMs);
    await closeOwned(state, log, "interrupted");
    await endTurn(deps, state, log, "interrupted", { reason: "watchdog" });
    state.controller.abort(interrupted);
    throw interrupted;
  }
  const error = settled.failed ? settled.error : state.errors[0];
  // A reply that is durable but not delivered yet is not a failed turn (DESIGN §3 "Waiting is
  // durable"): the queue delivers it; running the handler again would only repeat its work.
  const deliveryPending =
    error instanceof DeliveryPendingError &&
    state.errors.every((e) => e instanceof DeliveryPendingError);
  const outcome: TurnOutcome = state.signal.aborted
    ? "aborted"
    : deliveryPending
      ? "completed"
      : settled.failed || state.errors.length > 0
        ? "error"
        : "completed";
  await closeOwned(state, log, outcome);
  await endTurn(
    deps,
    state,
    log,
    outcome,
    deliveryPending ? { reason: "delivery_pending" } : error === undefined ? {} : { error },
  );
  if (settled.failed) throw settled.error;
  if (error !== undefined) throw error;
  return settled.value as T;
}

/**
 * Stops what the turn opened and did not end itself: typing indicators, live sessions left
 * without a final (DESIGN §7). Failures are logged; they do not change the outcome.
 */
async function closeOwned(state: TurnState, log: HeraldLogger, outcome: TurnOutcome) {
  for (const error of await state.closeOwned(outcome)) {
    log.warn({ error: describeError(error), outcome }, "could not close a resource of the turn");
  }
}

/** Writes `turn/end` (with an `error` node first for outcome `error`) and tells subscribers. */
async function endTurn(
  deps: TurnRunDeps,
  state: TurnState,
  log: HeraldLogger,
  outcome: TurnOutcome,
  extra: { reason?: string; error?: unknown },
): Promise<void> {
  state.ended = true;
  deps.running.delete(state.turnId);
  const at = deps.clock();
  const { turnId, conversation, root } = state;
  const error = extra.error === undefined ? undefined : describeError(extra.error);
  const data: TurnEndData = {
    outcome,
    ...(extra.reason === undefined ? {} : { reason: extra.reason }),
    ...(error ? { error: { name: error.name, message: error.message } } : {}),
  };
  const events: NewLedgerEvent[] = [];
  if (outcome === "error" && error) {
    events.push(
      messageEvent(conversation, {
        id: randomUUID(),
        at,
        turnId,
        role: "error",
        text: `${error.name}: ${error.message}`,
      }),
    );
  }
  events.push(endEvent(conversation, turnId, at, data));
  let seq: number | undefined;
  try {
    seq = (await deps.store.appendLedger(events)).at(-1)?.seq;
  } catch (e) {
    // The turn stays open in the ledger: no fork there until a later turn's sweep closes it.
    log.error({ error: describeError(e), outcome }, "could not write turn/end");
  }
  log.info({ outcome, seq }, "turn ended");
  await deps.emit({
    type: "ended",
    turnId,
    conversation,
    root,
    outcome,
    at,
    ...(seq === undefined ? {} : { seq }),
    ...(data.error ? { error: data.error } : {}),
  });
}
