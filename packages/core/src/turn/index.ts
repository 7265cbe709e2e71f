/**
 * Turns (DESIGN §7): the turn scope that stamps the root `turnId`, the turn lifecycle with its
 * ledger events, conversation snapshots, branch eligibility and completed-turn forks.
 *
 * @module
 */

export { type CurrentTurn, currentTurn, currentTurnId } from "../context/scope.ts";
export {
  ForkTargetNotEmptyError,
  ForkUnavailableError,
  type ForkUnavailableReason,
  TurnInterruptedError,
} from "./errors.ts";
export {
  conversationOf,
  type ForkOriginData,
  type TurnEndData,
  type TurnStartData,
} from "./ledger.ts";
export { branchEligibility, isBranchableNode, projectSnapshot } from "./snapshot.ts";
export { TURN_DEFAULTS, type TurnLedgerApi, type TurnRuntime } from "./TurnRuntime.ts";
export * from "./types.ts";
