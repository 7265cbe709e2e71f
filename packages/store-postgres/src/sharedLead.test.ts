/**
 * Shared buckets taken ahead and settled on the next take (migration 9,
 * `settle_and_take_tokens`): a slot whose call answered and was settled may be taken up to the
 * lead before it frees, leased as of when it frees (`aheadMs`, the same for all of a call's
 * slots); a slot whose call is still in flight only once free; a settle rides on the next take
 * statement instead of costing one of its own, or goes alone after a few ms, or at once when
 * its lease ends soon. And `take_tokens` (migration 4), which processes of the previous build
 * still call, takes nothing ahead and leaves what it takes to be taken only once free.
 */
import { scaledMs } from "@herald/core/testing";
import { afterAll, describe, expect, it } from "vitest";
import {
  postgresAvailable,
  recordStatements,
  requirePostgresOrSkip,
  throwawaySchemas,
  withClient,
} from "./testing/postgresTest.ts";

const available = requirePostgresOrSkip(await postgresAvailable());
const env = throwawaySchemas();
afterAll(() => env.dispose());

/** The statements this process sends (first 4 words of each), since the last reset. */
const statements = recordStatements(4);

async function openStore() {
  const schema = env.schema();
  const store = env.store(schema);
  await store.open();
  return { schema, store, limits: store.sharedLimits };
}

/** A slot's row as the database has it. */
async function slotRow(schema: string, bucket: string) {
  return withClient(async (c) => {
    const { rows } = await c.query<{ free_at: string; settled: boolean; now: string }>(
      `SELECT free_at::text, settled,
         ((extract(epoch FROM clock_timestamp()) * 1000)::bigint)::text AS now
       FROM "${schema}".rate_limit_slots WHERE bucket = $1 AND slot = 0`,
      [bucket],
    );
    const row = rows[0];
    if (!row) throw new Error(`no slot for ${bucket}`);
    return { freeAt: Number(row.free_at), settled: row.settled, now: Number(row.now) };
  });
}

describe.runIf(available)("shared buckets taken ahead (migration 9)", () => {
  it("takes a settled slot within the lead, leased as of when it frees; not one in flight", async () => {
    const { schema, limits } = await openStore();
    // Window and leads scaled (HERALD_TEST_TIME_SCALE): the slot stays in flight and within
    // the lead however long a statement takes on a busy machine.
    const one = { key: "one", limit: 1, windowMs: scaledMs(400) };
    const leadMs = scaledMs(1_000);
    const first = await limits.takeTokens([one]);
    if (!first.tokens) throw new Error("not taken");
    expect(first.aheadMs).toBeUndefined();
    expect((await slotRow(schema, "one")).settled).toBe(false);
    // In flight: even a lead longer than the wait does not take it.
    const inFlight = await limits.takeTokens([one], { leadMs });
    expect(inFlight.tokens).toBeUndefined();
    expect(inFlight.waitMs).toBeGreaterThan(0);
    // Answered: settled with no delay, it may now be taken up to the lead before it frees.
    await limits.settleTokens(first.tokens, 0);
    const readAt = performance.now();
    const settled = await slotRow(schema, "one");
    expect(settled).toMatchObject({ settled: true, freeAt: first.tokens[0]?.freeAt });
    const left = settled.freeAt - settled.now;
    // A refused take with a lead is told to come back that much sooner (less the time between
    // the read above and the take, which a loaded machine stretches).
    const early = await limits.takeTokens([one], { leadMs: 50 });
    const between = Math.ceil(performance.now() - readAt);
    expect(early.waitMs).toBeGreaterThanOrEqual(left - 50 - between - 1);
    expect(early.waitMs).toBeLessThanOrEqual(left - 50 + 1);
    const ahead = await limits.takeTokens([one], { leadMs });
    if (!ahead.tokens) throw new Error("not taken ahead");
    expect(ahead.aheadMs).toBeGreaterThan(0);
    expect(ahead.aheadMs).toBeLessThanOrEqual(left);
    // Leased one window after it freed, not after the take.
    expect(ahead.tokens[0]?.freeAt).toBe(settled.freeAt + one.windowMs);
  });

  it("leases all of a call's slots as of the one that frees last", async () => {
    const { limits } = await openStore();
    const bot = { key: "bot", limit: 5, windowMs: 500 };
    const chat = { key: "chat:x", limit: 1, windowMs: 500 };
    const first = await limits.takeTokens([chat]);
    if (!first.tokens) throw new Error("not taken");
    await limits.settleTokens(first.tokens, 0);
    const got = await limits.takeTokens([bot, chat], { leadMs: 1_000 });
    if (!got.tokens) throw new Error("not taken");
    const chatFree = first.tokens[0]?.freeAt ?? 0;
    // The bot bucket had a free slot now, the chat one frees later: both leased from then.
    expect(got.tokens.map((k) => k.freeAt)).toEqual([chatFree + 500, chatFree + 500]);
    expect(got.aheadMs).toBeGreaterThan(0);
  });

  it("sends a settle with the next take, in one statement", async () => {
    const { schema, limits } = await openStore();
    const a = { key: "a", limit: 1, windowMs: 60_000 };
    const b = { key: "b", limit: 1, windowMs: 60_000 };
    const got = await limits.takeTokens([a]);
    if (!got.tokens) throw new Error("not taken");
    statements.reset();
    const settling = limits.settleTokens(got.tokens, 250);
    const next = limits.takeTokens([b]);
    await Promise.all([settling, next]);
    // (b's slot row is created first: the first take of a bucket.)
    expect(statements.sent.filter((s) => !s.startsWith("INSERT"))).toEqual([
      expect.stringContaining("settle_and_take_tokens"),
    ]);
    expect(await slotRow(schema, "a")).toMatchObject({
      settled: true,
      freeAt: (got.tokens[0]?.freeAt ?? 0) + 250,
    });
  });

  it("sends a settle alone when no take comes within a few ms, and at once when its lease ends soon", async () => {
    const { schema, limits } = await openStore();
    const a = { key: "a", limit: 1, windowMs: 60_000 };
    const got = await limits.takeTokens([a]);
    if (!got.tokens) throw new Error("not taken");
    statements.reset();
    const t0 = performance.now();
    await limits.settleTokens(got.tokens, 100);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(8);
    expect(statements.sent).toEqual([expect.stringMatching(/^UPDATE/)]);
    expect((await slotRow(schema, "a")).settled).toBe(true);
    // A 150 ms lease settled 100 ms late has 50 left: no waiting for a take to ride on.
    const short = { key: "short", limit: 1, windowMs: 150 };
    const quick = await limits.takeTokens([short]);
    if (!quick.tokens) throw new Error("not taken");
    // A take issued right after it: a settle with time left would ride on it; this one was sent
    // alone, at once (an ordering of statements, not a duration, so it holds on a busy machine).
    statements.reset();
    const settling = limits.settleTokens(quick.tokens, 100);
    const rider = limits.takeTokens([{ key: "rider", limit: 1, windowMs: 60_000 }]);
    await Promise.all([settling, rider]);
    expect(statements.sent[0], statements.sent.join(" | ")).toMatch(/^UPDATE/);
    expect(statements.sent.at(-1)).toMatch(/settle_and_take_tokens/);
    expect((await slotRow(schema, "short")).freeAt).toBe((quick.tokens[0]?.freeAt ?? 0) + 100);
  });

  it("take_tokens of the previous build still takes, nothing ahead, and marks its slot in flight", async () => {
    const { schema, store } = await openStore();
    await store.sharedLimits.takeTokens([{ key: "warm", limit: 1, windowMs: 1 }]);
    await withClient((c) =>
      c.query(`INSERT INTO "${schema}".rate_limit_slots (bucket, slot) VALUES ('old', 0)`),
    );
    const { rows } = await withClient((c) =>
      c.query<{ r_slot: number | null; r_free_at: string | null }>(
        `SELECT * FROM "${schema}".take_tokens($1, $2, $3, $4)`,
        [["old"], [1], [60_000], [0]],
      ),
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.r_slot).toBe(0);
    const row = await slotRow(schema, "old");
    expect(row).toMatchObject({ settled: false, freeAt: Number(rows[0]?.r_free_at) });
    const refused = await store.sharedLimits.takeTokens(
      [{ key: "old", limit: 1, windowMs: 60_000 }],
      { leadMs: 120_000 },
    );
    expect(refused.tokens).toBeUndefined();
  });
});
