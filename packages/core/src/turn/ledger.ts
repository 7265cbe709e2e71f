/**
 * The turn ledger layout (DESIGN §3, §7): per-conversation, append-only events with a `seq`
 * the store assigns atomically.
 *
 * | type | turnId | data |
 * |---|---|---|
 * | `turn/start` | the turn | {@link TurnStartData} |
 * | `turn/message` | the turn | a {@link TurnMessage} (a transcript node) |
 * | `turn/end` | the turn | {@link TurnEndData}; the **first** one of a turn is the completion fact |
 * | `fork/origin` | — | {@link ForkOriginData}, first event of a forked conversation |
 *
 * Conversations are named `chat/<channel>/<account>/<chat id>` (URI-encoded parts), apart from
 * the receive inbox's `herald.inbox/<channel>`.
 *
 * @module
 */
import type { ChannelMessage, MessageTarget } from "../message/message.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import type { LedgerEvent, NewLedgerEvent } from "../state/types.ts";
import { TURN_EVENT, type TurnMessage, type TurnOutcome } from "./types.ts";

/** Data of `turn/start`. */
export type TurnStartData = {
  rootMessageId: string;
  channel: string;
  accountId?: string;
  target: MessageTarget;
  platformMessageId?: string;
  /** The watchdog TTL in force, in ms (lets any process tell a dead turn from a slow one). */
  watchdogMs: number;
};

/** Data of `turn/end`. */
export type TurnEndData = {
  outcome: TurnOutcome;
  /**
   * Why, for `interrupted`: `watchdog` or `stale` (closed by a later turn); for `completed`:
   * `delivery_pending` when a reply was stored but not delivered yet when the turn ended.
   */
  reason?: string;
  error?: { name: string; message: string };
};

/** Data of `fork/origin`. */
export type ForkOriginData = { from: string; atSeq: number; throughSeq: number; turnId: string };

/**
 * The ledger conversation of a message's chat: `chat/<channel>/<account>/<chat id>`. Threads
 * belong to their chat's conversation; pass `conversation` to `runtime.turn` to split them.
 */
export function conversationOf(message: Pick<ChannelMessage, "channel" | "accountId" | "target">) {
  const part = (s: string) => encodeURIComponent(s);
  return `chat/${part(message.channel)}/${part(message.accountId ?? "-")}/${part(message.target.id)}`;
}

/** Reads events `fromSeq`..`toSeq` in pages (all of them when `toSeq` is absent). */
export async function* readEvents(
  store: MessageStateStore,
  conversation: string,
  fromSeq: number,
  toSeq?: number,
  pageSize = 500,
): AsyncGenerator<LedgerEvent> {
  let next = fromSeq;
  for (;;) {
    const page = await store.readLedger({
      conversation,
      fromSeq: next,
      ...(toSeq === undefined ? {} : { toSeq }),
      limit: pageSize,
    });
    for (const event of page) yield event;
    const last = page.at(-1);
    if (!last || page.length < pageSize) return;
    next = last.seq + 1;
  }
}

/** The `turn/end` event of a turn. */
export function endEvent(
  conversation: string,
  turnId: string,
  at: number,
  data: TurnEndData,
): NewLedgerEvent {
  return { conversation, type: TURN_EVENT.end, turnId, at, data };
}

/** A `turn/message` event. */
export function messageEvent(conversation: string, message: TurnMessage): NewLedgerEvent {
  return {
    conversation,
    type: TURN_EVENT.message,
    ...(message.turnId === undefined ? {} : { turnId: message.turnId }),
    at: message.at,
    data: message,
  };
}

/**
 * Closes turns left open by a dead process: among the `window` events before `beforeSeq`,
 * every `turn/start` without a `turn/end` whose watchdog TTL has passed gets
 * `turn/end { outcome: "interrupted", reason: "stale" }`. Two processes sweeping at once may
 * both write one; readers take the first.
 *
 * @returns the turn ids closed.
 */
export async function sweepStaleTurns(
  store: MessageStateStore,
  conversation: string,
  beforeSeq: number,
  window: number,
  now: number,
  isRunningHere: (turnId: string) => boolean,
): Promise<string[]> {
  if (window <= 0 || beforeSeq <= 1) return [];
  const open = new Map<string, { at: number; ttl: number }>();
  for await (const e of readEvents(
    store,
    conversation,
    Math.max(1, beforeSeq - window),
    beforeSeq - 1,
  )) {
    if (!e.turnId) continue;
    if (e.type === TURN_EVENT.start) {
      open.set(e.turnId, { at: e.at, ttl: (e.data as TurnStartData).watchdogMs });
    } else if (e.type === TURN_EVENT.end) {
      open.delete(e.turnId);
    }
  }
  const stale = [...open].filter(([id, s]) => s.at + s.ttl < now && !isRunningHere(id));
  if (stale.length === 0) return [];
  await store.appendLedger(
    stale.map(([id]) =>
      endEvent(conversation, id, now, { outcome: "interrupted", reason: "stale" }),
    ),
  );
  return stale.map(([id]) => id);
}
