/**
 * Completed-turn forks (seed `completed-turn-boundaries.md`): a fork at any seq of a turn
 * copies the conversation through that turn's `turn/end` — never a raw prefix cut inside a
 * turn, which would not be a balanced transcript.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import type { LedgerEvent, NewLedgerEvent } from "../state/types.ts";
import { ForkTargetNotEmptyError, ForkUnavailableError } from "./errors.ts";
import { type ForkOriginData, readEvents } from "./ledger.ts";
import { type ForkOptions, type ForkResult, TURN_EVENT } from "./types.ts";

/**
 * Copies `conversation` through the `turn/end` of the turn containing `atSeq` into a new
 * conversation, in one append (all or nothing). Events of turns still open at the cut (a
 * concurrent turn) are left out, so the copy holds completed turns only. The copy starts with
 * a `fork/origin` event; seqs are renumbered from 1.
 *
 * @throws {@link ForkUnavailableError} when `atSeq` is in an open turn (`open_turn`), does not
 * exist (`no_such_event`) or belongs to no turn (`outside_turn`).
 * @throws {@link ForkTargetNotEmptyError} when `into` already has events.
 */
export async function forkConversation(
  store: MessageStateStore,
  options: ForkOptions,
  now: number,
): Promise<ForkResult> {
  const { conversation, atSeq } = options;
  const [at] = await store.readLedger({ conversation, fromSeq: atSeq, toSeq: atSeq, limit: 1 });
  if (!at) throw new ForkUnavailableError(conversation, atSeq, "no_such_event");
  const turnId = at.turnId;
  if (!turnId) throw new ForkUnavailableError(conversation, atSeq, "outside_turn");

  let throughSeq: number | undefined;
  if (at.type === TURN_EVENT.end) throughSeq = at.seq;
  else {
    for await (const e of readEvents(store, conversation, atSeq + 1)) {
      if (e.type === TURN_EVENT.end && e.turnId === turnId) {
        throughSeq = e.seq;
        break;
      }
    }
  }
  if (throughSeq === undefined) {
    throw new ForkUnavailableError(conversation, atSeq, "open_turn", turnId);
  }

  const prefix: LedgerEvent[] = [];
  const closed = new Set<string>();
  for await (const e of readEvents(store, conversation, 1, throughSeq)) {
    prefix.push(e);
    if (e.type === TURN_EVENT.end && e.turnId) closed.add(e.turnId);
  }
  const kept = prefix.filter((e) => !e.turnId || closed.has(e.turnId));

  const into = options.into ?? `${conversation}~fork-${randomBytes(4).toString("hex")}`;
  const existing = await store.readLedger({ conversation: into, limit: 1 });
  if (existing.length > 0) throw new ForkTargetNotEmptyError(into);

  const origin: ForkOriginData = { from: conversation, atSeq, throughSeq, turnId };
  const copies: NewLedgerEvent[] = [
    { conversation: into, type: TURN_EVENT.forkOrigin, at: now, data: origin },
    ...kept.map(
      (e): NewLedgerEvent => ({
        conversation: into,
        type: e.type,
        at: e.at,
        ...(e.turnId === undefined ? {} : { turnId: e.turnId }),
        ...(e.data === undefined ? {} : { data: e.data }),
      }),
    ),
  ];
  await store.appendLedger(copies);
  return { conversation: into, throughSeq, turnId, copied: kept.length };
}
