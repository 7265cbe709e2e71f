/**
 * `pnpm bench:store`: intents per second through the full lifecycle
 * (enqueue → lease → pending → sending → committing (receipt) → sent) on SQLite, side by side
 * in one run: durable commits (synchronous=FULL) vs synchronous=NORMAL, one transaction per
 * step vs batched (one transaction per step for a batch of intents).
 *
 * Options: `--intents <n>` (default 2000), `--batch <n>` (default 100).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SqliteStateStore } from "../../packages/core/src/index.ts";
import { storeLifecycle } from "./lifecycle.ts";

const { values } = parseArgs({
  options: {
    intents: { type: "string", default: "2000" },
    batch: { type: "string", default: "100" },
  },
});
const N = Number(values.intents);
const B = Number(values.batch);
const dir = mkdtempSync(join(tmpdir(), "herald-bench-store-"));

type Row = {
  name: string;
  synchronous: "FULL" | "NORMAL";
  batched: boolean;
  perSec: number;
  ms: number;
};

async function run(name: string, synchronous: "FULL" | "NORMAL", batched: boolean): Promise<Row> {
  const store = new SqliteStateStore({
    path: join(dir, `${name.replace(/\W+/g, "-")}.db`),
    synchronous,
  });
  const perSec = await storeLifecycle(store, N, batched ? B : 1);
  await store.close();
  return { name, synchronous, batched, perSec, ms: (N / perSec) * 1000 };
}

const rows: Row[] = [];
rows.push(await run("FULL, one tx per step", "FULL", false));
rows.push(await run("NORMAL, one tx per step", "NORMAL", false));
rows.push(await run(`FULL, batched ×${B}`, "FULL", true));
rows.push(await run(`NORMAL, batched ×${B}`, "NORMAL", true));
rmSync(dir, { recursive: true, force: true });

const base = rows[0]?.perSec ?? 1;
console.log(
  `\nSQLite store lifecycle, ${N} intents, 5 transactions per intent-step (enqueue, lease, sending, committing, sent)`,
);
console.table(
  rows.map((r) => ({
    configuration: r.name,
    "intents/s": Math.round(r.perSec),
    "wall ms": Math.round(r.ms),
    "× vs FULL per-step": (r.perSec / base).toFixed(2),
  })),
);
