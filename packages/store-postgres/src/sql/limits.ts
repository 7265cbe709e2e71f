/**
 * Rate-limit buckets and loop-guard counts shared by every process on the store
 * (`SharedLimitStore` of `@herald/core`; docs/concepts/scaling.md "Shared rate limits").
 *
 * A bucket of `limit` calls per window is `limit` rows of `rate_limit_slots`, one per token,
 * each holding when it frees (`free_at`, epoch ms on the database's clock — the processes'
 * clocks need not agree). Taking a call's tokens is one statement: for each bucket it locks one
 * free slot (`FOR UPDATE SKIP LOCKED`, so processes taking tokens at once pick different slots
 * instead of queueing on one row) and, only when every bucket had one, leases them all until
 * now + window. A slot is thus used at most once per window, whoever uses it, and a bucket
 * never lets more than `limit` calls into any window across processes.
 *
 * Takes and settles made at once — in one tick, or while the previous statement is in flight —
 * go into one statement (`StatementBatcher`): a line of calls waiting for a bucket is served in
 * one round trip, not one per call.
 *
 * @module
 */
import type { SharedBucket, SharedLoopRule, SharedTake, SharedToken } from "@herald/core";
import type { Ctx } from "./context.ts";

const NOW_MS = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

/** Slots idle this long are deleted now and then (a missing slot is a free one). */
const IDLE_SLOT_MS = 3_600_000;

/** Keys may hold NUL (core's separator), which PostgreSQL text cannot: escape `%` and NUL. */
const enc = (key: string) => key.replaceAll("%", "%25").replaceAll("\u0000", "%00");
const dec = (key: string) => key.replaceAll("%00", "\u0000").replaceAll("%25", "%");

/** Per-store memory of the buckets whose slots exist (created once per process). */
export class SlotRegistry {
  readonly #known = new Map<string, number>();
  #takes = 0;

  /** The buckets whose slots must be created first. */
  missing(buckets: readonly SharedBucket[]): SharedBucket[] {
    return buckets.filter((b) => (this.#known.get(b.key) ?? 0) < b.limit);
  }

  created(buckets: readonly SharedBucket[]): void {
    for (const b of buckets) this.#known.set(b.key, Math.max(this.#known.get(b.key) ?? 0, b.limit));
  }

  /** True every 4096th take: time to sweep idle slots. */
  sweepDue(): boolean {
    this.#takes += 1;
    return this.#takes % 4096 === 0;
  }

  forget(): void {
    this.#known.clear();
  }
}

/** @throws TypeError for a bucket whose limit is not a positive integer or window below 0. */
export function checkBuckets(buckets: readonly SharedBucket[]): void {
  for (const b of buckets) {
    if (!Number.isInteger(b.limit) || b.limit < 1 || !(b.windowMs >= 0)) {
      throw new TypeError(
        `shared bucket ${JSON.stringify(b.key)}: limit must be a positive integer and windowMs ≥ 0 (got ${b.limit}, ${b.windowMs})`,
      );
    }
  }
}

/** One call's take: its buckets, and how far ahead (ms) it may take a settled slot. */
export type TakeCall = { buckets: readonly SharedBucket[]; leadMs: number };

/** Tokens to move later, and by how much (ms; 0: only marks them answered). */
export type Settle = { tokens: readonly SharedToken[]; delayMs: number };

/** The settles of many calls as the four arrays the statements take. */
function settleArrays(settles: readonly Settle[]): [string[], number[], number[], number[]] {
  const rows = settles.flatMap((s) =>
    s.tokens.map((k) => ({ k, delay: Math.max(0, Math.ceil(s.delayMs)) })),
  );
  return [
    rows.map((r) => enc(r.k.key)),
    rows.map((r) => r.k.slot),
    rows.map((r) => r.k.freeAt),
    rows.map((r) => r.delay),
  ];
}

/**
 * Settles answered calls' tokens, then takes the tokens of several calls, in one statement
 * (`settle_and_take_tokens` of migration 9), in call order: each call one token from every one
 * of its buckets or none. A call may take a slot up to `leadMs` before it frees when the call
 * that held it has answered (it is then leased as of when it frees: `aheadMs`). A call without
 * buckets takes nothing and goes.
 */
export async function takeTokens(
  ctx: Ctx,
  slots: SlotRegistry,
  calls: readonly TakeCall[],
  settles: readonly Settle[] = [],
): Promise<SharedTake[]> {
  const { t } = ctx;
  for (const c of calls) checkBuckets(c.buckets);
  const missing = slots.missing(calls.flatMap((c) => c.buckets));
  if (missing.length > 0) {
    const unique = [...new Map(missing.map((b) => [b.key, b])).values()];
    await ctx.db.query(
      `INSERT INTO ${t.rateSlots} (bucket, slot)
       SELECT r.bucket, g FROM unnest($1::text[], $2::int[]) AS r(bucket, lim),
         generate_series(0, r.lim - 1) AS g
       ON CONFLICT DO NOTHING`,
      [unique.map((b) => enc(b.key)), unique.map((b) => b.limit)],
    );
    slots.created(unique);
  }
  if (slots.sweepDue()) {
    await ctx.db.query(`DELETE FROM ${t.rateSlots} WHERE free_at < ${NOW_MS} - $1`, [IDLE_SLOT_MS]);
    slots.forget();
  }
  const entries = calls.flatMap((c, call) =>
    c.buckets.map((b) => ({ call, b, lead: Math.max(0, Math.floor(c.leadMs)) })),
  );
  const { rows } =
    entries.length === 0 && settles.length === 0
      ? { rows: [] }
      : await ctx.db.query<{
          r_call: number;
          r_bucket: string;
          r_slot: number | null;
          r_free_at: string | null;
          r_wait: string | null;
          r_ahead: string | null;
        }>(
          `SELECT * FROM ${t.settleTakeFn}($1::text[], $2::int[], $3::bigint[], $4::int[],
             $5::bigint[], $6::text[], $7::int[], $8::bigint[], $9::bigint[])`,
          [
            entries.map((e) => enc(e.b.key)),
            entries.map((e) => e.b.limit),
            entries.map((e) => Math.ceil(e.b.windowMs)),
            entries.map((e) => e.call),
            entries.map((e) => e.lead),
            ...settleArrays(settles),
          ],
        );
  const byCall = new Map<number, typeof rows>();
  for (const r of rows) {
    const list = byCall.get(r.r_call) ?? [];
    list.push(r);
    byCall.set(r.r_call, list);
  }
  return calls.map(({ buckets }, call): SharedTake => {
    if (buckets.length === 0) return { waitMs: 0, tokens: [] };
    const got = byCall.get(call) ?? [];
    if (got.length === buckets.length && got.every((r) => r.r_slot !== null)) {
      const win = new Map(buckets.map((b) => [b.key, Math.ceil(b.windowMs)]));
      const ahead = Math.max(0, ...got.map((r) => Number(r.r_ahead ?? 0)));
      return {
        waitMs: 0,
        tokens: got.map((r) => ({
          key: dec(r.r_bucket),
          slot: Number(r.r_slot),
          freeAt: Number(r.r_free_at),
          windowMs: win.get(dec(r.r_bucket)) ?? 0,
        })),
        ...(ahead > 0 ? { aheadMs: ahead } : {}),
      };
    }
    // Not every bucket had a free slot: the one that frees last holds the call.
    let blockedBy = buckets[0]?.key ?? "";
    let wait = 1;
    for (const r of got) {
      const w = Number(r.r_wait ?? 1);
      if (w > wait) {
        wait = w;
        blockedBy = dec(r.r_bucket);
      }
    }
    return { waitMs: Math.max(1, wait), blockedBy };
  });
}

/**
 * Settles tokens without taking any, several calls' worth in one statement: moves them later
 * by their delay and marks them answered (only slots still holding the lease each token names).
 */
export async function settleTokens(ctx: Ctx, settles: readonly Settle[]): Promise<undefined[]> {
  if (settles.some((s) => s.tokens.length > 0)) {
    await ctx.db.query(
      `UPDATE ${ctx.t.rateSlots} AS s SET free_at = v.free_at + v.delay, settled = true
       FROM unnest($1::text[], $2::int[], $3::bigint[], $4::bigint[]) AS v(bucket, slot, free_at, delay)
       WHERE s.bucket = v.bucket AND s.slot = v.slot AND s.free_at = v.free_at`,
      settleArrays(settles),
    );
  }
  return settles.map(() => undefined);
}

/**
 * Counts one bot-authored event of a pair for every process (the rule of core's `LoopGuard`):
 * under a row lock, events older than the window are dropped, the event that would exceed
 * `maxEvents` starts the cooldown, and events during it are dropped.
 */
export async function checkLoopPair(
  ctx: Ctx,
  pair: string,
  rule: SharedLoopRule,
): Promise<{ action: "accept" } | { action: "drop"; cooldownUntil: number }> {
  const { t } = ctx;
  return ctx.db.tx(async (client) => {
    const { rows } = await client.query<{ times: string; cooldown_until: string; now: string }>(
      `INSERT INTO ${t.loopPairs} (pair, seen_at) VALUES ($1, ${NOW_MS})
       ON CONFLICT (pair) DO UPDATE SET seen_at = excluded.seen_at
       RETURNING array_to_json(times)::text AS times, cooldown_until::text, seen_at::text AS now`,
      [enc(pair)],
    );
    const row = rows[0];
    const now = Number(row?.now ?? 0);
    let times = (JSON.parse(row?.times ?? "[]") as number[]).map(Number);
    let cooldownUntil = Number(row?.cooldown_until ?? 0);
    let verdict: { action: "accept" } | { action: "drop"; cooldownUntil: number };
    if (now < cooldownUntil) verdict = { action: "drop", cooldownUntil };
    else {
      if (cooldownUntil !== 0) {
        cooldownUntil = 0;
        times = [];
      }
      times = times.filter((at) => now - at < rule.windowMs);
      if (times.length >= rule.maxEvents) {
        cooldownUntil = now + rule.cooldownMs;
        times = [];
        verdict = { action: "drop", cooldownUntil };
      } else {
        times.push(now);
        verdict = { action: "accept" };
      }
    }
    await client.query(
      `UPDATE ${t.loopPairs} SET times = $2::bigint[], cooldown_until = $3 WHERE pair = $1`,
      [enc(pair), times, cooldownUntil],
    );
    // Pairs quiet for longer than a window and a cooldown are forgotten (1 in 64 checks).
    if (Math.random() < 1 / 64) {
      await client.query(`DELETE FROM ${t.loopPairs} WHERE seen_at < $1`, [
        now - rule.windowMs - rule.cooldownMs,
      ]);
    }
    return verdict;
  });
}
