/**
 * Errors of turns and the turn ledger.
 *
 * @module
 */
import { HeraldError } from "../errors.ts";

/** Why a fork point was refused. */
export type ForkUnavailableReason =
  /** The seq belongs to a turn without a `turn/end` (still running, or left open). */
  | "open_turn"
  /** No event has this seq in the conversation. */
  | "no_such_event"
  /** The event at this seq belongs to no turn (a fork header, a foreign event). */
  | "outside_turn";

/**
 * A fork was asked at a seq that is not inside a completed turn (seed
 * `completed-turn-boundaries.md`: only a durable `turn/end` makes a turn forkable).
 */
export class ForkUnavailableError extends HeraldError {
  readonly conversation: string;
  readonly atSeq: number;
  readonly reason: ForkUnavailableReason;
  readonly turnId: string | undefined;
  constructor(conversation: string, atSeq: number, reason: ForkUnavailableReason, turnId?: string) {
    const why = {
      open_turn: `turn ${turnId ?? "?"} has no turn/end yet (it is running or was left open); fork at a completed turn`,
      no_such_event: "no event has this seq",
      outside_turn: "the event belongs to no turn",
    }[reason];
    super("HERALD_FORK_UNAVAILABLE", `cannot fork ${conversation} at seq ${atSeq}: ${why}`);
    this.conversation = conversation;
    this.atSeq = atSeq;
    this.reason = reason;
    this.turnId = turnId;
  }
}

/** `fork({ into })` named a conversation that already has events. */
export class ForkTargetNotEmptyError extends HeraldError {
  readonly conversation: string;
  constructor(conversation: string) {
    super(
      "HERALD_FORK_TARGET_NOT_EMPTY",
      `fork target ${conversation} already has events; pick a new conversation name`,
    );
    this.conversation = conversation;
  }
}

/**
 * The turn's watchdog TTL ran out before its work settled: `turn/end` was written with
 * outcome `interrupted` and `runtime.turn` rejects with this. The work may still be running.
 */
export class TurnInterruptedError extends HeraldError {
  readonly turnId: string;
  readonly watchdogMs: number;
  constructor(turnId: string, watchdogMs: number) {
    super(
      "HERALD_TURN_INTERRUPTED",
      `turn ${turnId} did not settle within its watchdog TTL of ${watchdogMs} ms and was ended as interrupted; raise turns.watchdogMs or make the handler honour turn.signal`,
    );
    this.turnId = turnId;
    this.watchdogMs = watchdogMs;
  }
}
