/**
 * Conversation snapshots and branch eligibility (seed `completed-turn-boundaries.md`,
 * "Decision"): a snapshot projects a window of raw ledger events into transcript nodes plus
 * the completed turn boundaries (`turnEnds`) present in that window; a node offers branch only
 * when it is the **tail node of a completed turn** and is a user message or a content-bearing
 * assistant message.
 *
 * @module
 */
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import type { LedgerEvent } from "../state/types.ts";
import type { TurnEndData, TurnStartData } from "./ledger.ts";
import {
  type BranchTarget,
  type ConversationSnapshot,
  type LedgerWindow,
  type TranscriptNode,
  TURN_EVENT,
  type TurnEndMark,
  type TurnMessage,
  type TurnStartMark,
} from "./types.ts";

/** Default most events in one snapshot window. */
export const DEFAULT_WINDOW_LIMIT = 1_000;

/** Projects raw ledger events (one window, in seq order) into a snapshot. Pure. */
export function projectSnapshot(
  conversation: string,
  fromSeq: number,
  events: readonly LedgerEvent[],
): ConversationSnapshot {
  const nodes: TranscriptNode[] = [];
  const turnStarts: TurnStartMark[] = [];
  const turnEnds: TurnEndMark[] = [];
  const ended = new Set<string>();
  for (const e of events) {
    if (!e.turnId) continue;
    if (e.type === TURN_EVENT.start) {
      const data = e.data as TurnStartData;
      turnStarts.push({
        turnId: e.turnId,
        seq: e.seq,
        rootMessageId: data.rootMessageId,
        at: e.at,
      });
    } else if (e.type === TURN_EVENT.message) {
      nodes.push({ seq: e.seq, turnId: e.turnId, at: e.at, message: e.data as TurnMessage });
    } else if (e.type === TURN_EVENT.end && !ended.has(e.turnId)) {
      // The first turn/end is the completion fact; a second one (two sweepers) is ignored.
      ended.add(e.turnId);
      const data = e.data as TurnEndData;
      turnEnds.push({ turnId: e.turnId, seq: e.seq, outcome: data.outcome, at: e.at });
    }
  }
  return {
    conversation,
    fromSeq,
    toSeq: events.at(-1)?.seq ?? fromSeq - 1,
    nodes,
    turnStarts,
    turnEnds,
  };
}

/**
 * Reads one window of a conversation's ledger and projects it.
 *
 * @param window - seqs inclusive; page backwards with `{ fromSeq: n - size + 1, toSeq: n }`
 * (seqs are contiguous per conversation). @defaultValue `{ fromSeq: 1, limit: 1_000 }`
 */
export async function readSnapshot(
  store: MessageStateStore,
  conversation: string,
  window: LedgerWindow = {},
): Promise<ConversationSnapshot> {
  const fromSeq = Math.max(1, window.fromSeq ?? 1);
  const events = await store.readLedger({
    conversation,
    fromSeq,
    ...(window.toSeq === undefined ? {} : { toSeq: window.toSeq }),
    limit: window.limit ?? DEFAULT_WINDOW_LIMIT,
  });
  return projectSnapshot(conversation, fromSeq, events);
}

/** True for a node that may carry branch when it is a completed turn's tail. */
export function isBranchableNode(message: TurnMessage): boolean {
  if (message.role === "user") return true;
  return message.role === "assistant" && message.text.trim().length > 0;
}

const memo = new WeakMap<ConversationSnapshot, readonly BranchTarget[]>();

/**
 * The nodes of a snapshot that offer branch / fork: for each completed turn boundary in the
 * window, the turn's last node before its `turn/end`, if that node is a user message or an
 * assistant message with text. A later tool result, reasoning-only or interrupted node without
 * text, or error node in the turn takes eligibility away; open turns (no `turn/end` in the
 * window) have none. A window that starts inside a turn still finds the tail when the turn's
 * end is in the window (everything between tail and end is then in it too); a window that ends
 * inside a turn sees it open.
 *
 * Pure, and stable: the same snapshot object always gets the same (frozen) array back.
 */
export function branchEligibility(snapshot: ConversationSnapshot): readonly BranchTarget[] {
  const cached = memo.get(snapshot);
  if (cached) return cached;
  const tails = new Map<string, TranscriptNode>();
  const ends = new Map(snapshot.turnEnds.map((end) => [end.turnId, end]));
  for (const node of snapshot.nodes) {
    const end = ends.get(node.turnId);
    if (!end || node.seq > end.seq) continue;
    const tail = tails.get(node.turnId);
    if (!tail || node.seq > tail.seq) tails.set(node.turnId, node);
  }
  const targets: BranchTarget[] = [];
  for (const end of snapshot.turnEnds) {
    const tail = tails.get(end.turnId);
    if (tail && isBranchableNode(tail.message)) {
      targets.push({ seq: tail.seq, turnId: end.turnId, endSeq: end.seq });
    }
  }
  targets.sort((a, b) => a.seq - b.seq);
  const frozen = Object.freeze(targets.map((t) => Object.freeze(t)));
  memo.set(snapshot, frozen);
  return frozen;
}
