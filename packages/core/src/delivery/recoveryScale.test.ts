/**
 * C53 · 100k pending ([H25]; DESIGN §12 "Recovery is incremental"): a recovery pass reads only
 * the intents it may repair, through indexes, never the pending backlog; a pass cut off at its
 * bound (rows or time) is continued by the next one from its cursor, and every candidate is
 * reached exactly once. The backlog is written in one statement (`bulkInsertSqliteIntents`).
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../logger.ts";
import { DEFAULT_BACKOFF } from "../message/failure.ts";
import type { DurableSendIntent } from "../message/intent.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { bulkInsertSqliteIntents } from "../testing/bulkIntents.ts";
import { gateOrFull } from "../testing/suiteDepth.ts";
import { DELIVERY_DEFAULTS, type DeliveryDeps } from "./deps.ts";
import { newRecoveryCursor, type RecoveryReport, recoverStale } from "./recovery.ts";

const BACKLOG = 100_000;
/** Candidates of each kind (stale sending, stale committing, old leases, skewed). */
const PER_KIND = gateOrFull(400, 2_000);
const CHUNKS = 4;

const now = 5_000_000_000_000;
const far = now + 10 * DELIVERY_DEFAULTS.maxScheduleAheadMs;
const per = Math.ceil(PER_KIND / CHUNKS);
const ids = { sending: [] as string[], committing: [] as string[], old: [] as string[] };
const skewed: string[] = [];
const untouched: string[] = [];
let dir = "";
/** The store file with the backlog, written once; each test works on a copy. */
let template = "";
let store: SqliteStateStore | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "herald-c53-"));
  template = join(dir, "template.db");
  const s = new SqliteStateStore({ path: template, synchronous: "NORMAL" });
  await s.close(); // migrated
  // The candidates spread through the backlog's seq range, chunk by chunk.
  for (let c = 0; c < CHUNKS; c++) {
    const at = { createdAt: now - 60_000 };
    bulkInsertSqliteIntents(template, { count: BACKLOG / CHUNKS, prefix: `b${c}`, ...at });
    ids.sending.push(
      ...bulkInsertSqliteIntents(template, {
        count: per,
        prefix: `s${c}`,
        status: "sending",
        leaseOwner: "dead:1",
        leaseExpiresAt: now - 1,
        ...at,
      }),
    );
    ids.committing.push(
      ...bulkInsertSqliteIntents(template, {
        count: per,
        prefix: `k${c}`,
        status: "committing",
        leaseOwner: "w:old",
        leaseExpiresAt: now + 60_000,
        ...at,
      }),
    );
    ids.old.push(
      ...bulkInsertSqliteIntents(template, {
        count: per,
        prefix: `o${c}`,
        leaseOwner: "w:old",
        leaseExpiresAt: now + 60_000,
        ...at,
      }),
    );
    skewed.push(
      ...bulkInsertSqliteIntents(template, {
        count: per,
        prefix: `z${c}`,
        nextAttemptAt: far + c,
        ...at,
      }),
    );
    // Another live worker's intents: read, never touched.
    untouched.push(
      ...bulkInsertSqliteIntents(template, {
        count: 3,
        prefix: `x${c}`,
        status: "sending",
        leaseOwner: "other:1",
        leaseExpiresAt: now + 60_000,
        ...at,
      }),
      ...bulkInsertSqliteIntents(template, {
        count: 3,
        prefix: `y${c}`,
        leaseOwner: "other:1",
        leaseExpiresAt: now + 60_000,
        ...at,
      }),
    );
  }
}, 120_000);
afterEach(async () => {
  await store?.close().catch(() => {});
  store = undefined;
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The store, counting each intent's reads and writes. */
function counting(inner: MessageStateStore) {
  const reads = new Map<string, number>();
  const writes = new Map<string, number>();
  const bump = (m: Map<string, number>, id: string) => m.set(id, (m.get(id) ?? 0) + 1);
  const read = (rows: DurableSendIntent[]) => {
    for (const r of rows) bump(reads, r.id);
    return rows;
  };
  const store = new Proxy(inner, {
    get(target, prop) {
      if (prop === "listIntents")
        return async (q: Parameters<MessageStateStore["listIntents"]>[0]) =>
          read(await target.listIntents(q));
      if (prop === "listRecoveryCandidates")
        return async (q: Parameters<MessageStateStore["listRecoveryCandidates"]>[0]) =>
          read(await target.listRecoveryCandidates(q));
      if (prop === "transitionIntents")
        return async (t: Parameters<MessageStateStore["transitionIntents"]>[0]) => {
          const out = await target.transitionIntents(t);
          for (const x of t) bump(writes, x.id);
          return out;
        };
      if (prop === "releaseLease")
        return async (id: string, owner: string) => {
          const ok = await target.releaseLease(id, owner);
          if (ok) bump(writes, id);
          return ok;
        };
      if (prop === "updateIntent")
        return async (...a: Parameters<MessageStateStore["updateIntent"]>) => {
          const out = await target.updateIntent(...a);
          bump(writes, a[0]);
          return out;
        };
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store, reads, writes };
}

describe("C53 · recovery with 100k pending", () => {
  it.each(["rows", "time"] as const)(
    "C53 reaches every candidate exactly once through passes cut at every %s bound, never reading the backlog",
    async (bound) => {
      const path = join(dir, `${bound}.db`);
      copyFileSync(template, path);
      store = new SqliteStateStore({ path, synchronous: "NORMAL" });
      const counted = counting(store);
      let t = now;
      // "time": every read of the clock is 1 ms later and the budget is 0 ms, so each pass
      // stops after its first page; "rows": each pass reads at most 150 rows.
      const clock = bound === "time" ? () => t++ : () => t;
      const deps = {
        store: counted.store,
        clock,
        random: () => 0.5,
        logger: silentLogger,
        owner: "w:new",
        workerId: "w",
        adapterFor: () => undefined,
        options: { ...DELIVERY_DEFAULTS, backoff: DEFAULT_BACKOFF },
      } as unknown as DeliveryDeps;
      const cursor = newRecoveryCursor();
      const total = { toUnknown: 0, committed: 0, released: 0, skewRepaired: 0, rowsRead: 0 };
      let passes = 0;
      let report: RecoveryReport;
      do {
        report = await recoverStale(deps, {
          budgetMs: bound === "time" ? 0 : 60_000,
          maxRows: bound === "rows" ? 150 : Number.POSITIVE_INFINITY,
          cursor,
        });
        passes += 1;
        for (const k of Object.keys(total) as Array<keyof typeof total>) total[k] += report[k];
        expect(passes).toBeLessThan(10_000);
      } while (!report.complete);

      const candidates = 4 * per * CHUNKS;
      expect(passes).toBeGreaterThan(candidates / 200); // cut at many bounds
      expect(total).toEqual({
        toUnknown: per * CHUNKS,
        committed: per * CHUNKS,
        released: per * CHUNKS,
        skewRepaired: per * CHUNKS,
        rowsRead: candidates + untouched.length,
      });
      // Every candidate written exactly once; nothing else written; nothing read twice; no
      // intent of the backlog read at all.
      for (const id of [...ids.sending, ...ids.committing, ...ids.old, ...skewed]) {
        expect(counted.writes.get(id), id).toBe(1);
      }
      expect(counted.writes.size).toBe(candidates);
      expect(Math.max(...counted.reads.values())).toBe(1);
      expect([...counted.reads.keys()].filter((id) => id.startsWith("b"))).toEqual([]);
      const check = async (id: string | undefined) => store?.getIntent(id ?? "");
      expect((await check(ids.sending[0]))?.status).toBe("unknown_after_send");
      expect((await check(ids.committing.at(-1)))?.status).toBe("sent");
      expect((await check(ids.old[0]))?.leaseOwner).toBeUndefined();
      expect((await check(skewed.at(-1)))?.nextAttemptAt).toBeLessThanOrEqual(t);
      expect((await check(untouched[0]))?.status).toBe("sending");
      const counts = await store.countIntents();
      expect(counts.pending).toBe(BACKLOG + 2 * per * CHUNKS + 3 * CHUNKS);
    },
    60_000,
  );
});
