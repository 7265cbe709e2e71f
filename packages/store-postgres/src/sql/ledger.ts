/**
 * The per-conversation turn ledger.
 *
 * `seq` comes from a `ledger_heads` row per conversation, bumped with an upsert that returns the
 * new high-water mark: the row lock serializes concurrent appends to one conversation from any
 * number of connections, and conversations of one batch are bumped in sorted order so two
 * batches never deadlock. Appends to different conversations do not wait for each other.
 *
 * @module
 */
import type { LedgerEvent, NewLedgerEvent } from "@herald/core";
import { compact, int, ledgerFromRow, type Row, toJson } from "../rows.ts";
import type { Ctx } from "./context.ts";

/** Appends events in one transaction, assigning each the next `seq` of its conversation. */
export async function appendLedger(
  ctx: Ctx,
  events: readonly NewLedgerEvent[],
): Promise<LedgerEvent[]> {
  if (events.length === 0) return [];
  const { t } = ctx;
  const perConversation = new Map<string, number>();
  for (const e of events) {
    perConversation.set(e.conversation, (perConversation.get(e.conversation) ?? 0) + 1);
  }
  return ctx.db.tx(async (client) => {
    const next = new Map<string, number>();
    for (const conversation of [...perConversation.keys()].sort()) {
      const count = perConversation.get(conversation) ?? 0;
      const { rows } = await client.query<Row>(
        `INSERT INTO ${t.ledgerHeads} AS h (conversation, last_seq) VALUES ($1, $2)
         ON CONFLICT (conversation) DO UPDATE SET last_seq = h.last_seq + EXCLUDED.last_seq
         RETURNING last_seq`,
        [conversation, count],
      );
      next.set(conversation, int(rows[0]?.last_seq) - count + 1);
    }
    const at = ctx.clock();
    const out: LedgerEvent[] = [];
    for (const e of events) {
      const seq = next.get(e.conversation) ?? 1;
      next.set(e.conversation, seq + 1);
      const event = compact({
        conversation: e.conversation,
        seq,
        type: e.type,
        turnId: e.turnId,
        at: e.at ?? at,
        data: e.data,
      }) as LedgerEvent;
      await client.query(
        `INSERT INTO ${t.ledger} (conversation, seq, type, turn_id, at, data)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [event.conversation, event.seq, event.type, event.turnId ?? null, event.at, toJson(e.data)],
      );
      out.push(event);
    }
    return out;
  });
}

/** Reads a conversation's events in `seq` order, `fromSeq`..`toSeq` inclusive. */
export async function readLedger(
  ctx: Ctx,
  query: { conversation: string; fromSeq?: number; toSeq?: number; limit?: number },
): Promise<LedgerEvent[]> {
  const { rows } = await ctx.db.query<Row>(
    `SELECT * FROM ${ctx.t.ledger}
     WHERE conversation = $1 AND seq >= $2 AND seq <= $3 ORDER BY seq LIMIT $4`,
    [
      query.conversation,
      query.fromSeq ?? 1,
      query.toSeq ?? Number.MAX_SAFE_INTEGER,
      query.limit ?? 10_000,
    ],
  );
  return rows.map(ledgerFromRow);
}
