/**
 * Polling watermarks and dead letters: small single-statement tables of the receive side.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import type { DeadLetter, NewDeadLetter, WatermarkKey } from "@herald/core";
import { deadLetterFromRow, type Row } from "../rows.ts";
import type { Ctx } from "./context.ts";

const watermarkKey = (key: WatermarkKey) => [key.channel, key.accountId ?? "", key.source ?? ""];

/** Reads a polling watermark. */
export async function getWatermark(ctx: Ctx, key: WatermarkKey): Promise<string | undefined> {
  const { rows } = await ctx.db.query<Row>(
    `SELECT value FROM ${ctx.t.watermarks} WHERE channel = $1 AND account_id = $2 AND source = $3`,
    watermarkKey(key),
  );
  return rows[0] ? String(rows[0].value) : undefined;
}

/** Writes a polling watermark (upsert). */
export async function setWatermark(ctx: Ctx, key: WatermarkKey, value: string): Promise<void> {
  await ctx.db.query(
    `INSERT INTO ${ctx.t.watermarks} (channel, account_id, source, value, updated_at)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (channel, account_id, source)
     DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`,
    [...watermarkKey(key), value, ctx.clock()],
  );
}

/** Stores an inbound payload that failed to normalize, raw. */
export async function putDeadLetter(ctx: Ctx, letter: NewDeadLetter): Promise<DeadLetter> {
  const { rows } = await ctx.db.query<Row>(
    `INSERT INTO ${ctx.t.deadLetters} (id, channel, account_id, raw, error, status, received_at)
     VALUES ($1, $2, $3, $4, $5, 'new', $6) RETURNING *`,
    [
      letter.id ?? randomUUID(),
      letter.channel,
      letter.accountId ?? null,
      JSON.stringify(letter.raw ?? null),
      JSON.stringify(letter.error),
      letter.receivedAt,
    ],
  );
  return deadLetterFromRow(rows[0] as Row);
}

/** Reads one dead letter. */
export async function getDeadLetter(ctx: Ctx, id: string): Promise<DeadLetter | undefined> {
  const { rows } = await ctx.db.query<Row>(`SELECT * FROM ${ctx.t.deadLetters} WHERE id = $1`, [
    id,
  ]);
  return rows[0] ? deadLetterFromRow(rows[0]) : undefined;
}

/** Lists dead letters, oldest received first. @defaultValue limit 100 */
export async function listDeadLetters(
  ctx: Ctx,
  query: { channel?: string; status?: DeadLetter["status"]; limit?: number },
): Promise<DeadLetter[]> {
  const { rows } = await ctx.db.query<Row>(
    `SELECT * FROM ${ctx.t.deadLetters}
     WHERE ($1::text IS NULL OR channel = $1) AND ($2::text IS NULL OR status = $2)
     ORDER BY received_at, id LIMIT $3`,
    [query.channel ?? null, query.status ?? null, query.limit ?? 100],
  );
  return rows.map(deadLetterFromRow);
}

/** Records a replay attempt (counted) or a discard, at `now` (epoch ms). */
export async function markDeadLetter(
  ctx: Ctx,
  id: string,
  status: "replayed" | "discarded",
  now: number,
): Promise<void> {
  await ctx.db.query(
    `UPDATE ${ctx.t.deadLetters}
     SET status = $1, replayed_at = $2,
       replay_count = replay_count + (CASE WHEN $1 = 'replayed' THEN 1 ELSE 0 END)
     WHERE id = $3`,
    [status, now, id],
  );
}
