/**
 * Multi-process delivery on one PostgreSQL database: 4 gateway worker processes deliver 5,000
 * intents over 50 targets to an idempotent fake platform while one worker is SIGKILLed and
 * restarted every couple of seconds → zero lost, zero duplicates, per-target order kept.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import {
  FakePlatform,
  gateOrFull,
  newIntent,
  outboundMessage,
  scaledMs,
  serveFakePlatform,
  trackChild,
} from "@herald/core/testing";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresStateStore } from "./PostgresStateStore.ts";
import { locationOf } from "./testing/openStore.ts";
import {
  dropSchemas,
  freshSchemaName,
  postgresAvailable,
  requirePostgresOrSkip,
  TEST_POSTGRES_URL,
} from "./testing/postgresTest.ts";

const available = requirePostgresOrSkip(await postgresAvailable());
const workerScript = fileURLToPath(new URL("./testing/deliveryWorker.ts", import.meta.url));
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

function startWorker(config: object): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = trackChild(
      spawn(
        process.execPath,
        ["--conditions=herald-source", workerScript, JSON.stringify(config)],
        {
          stdio: ["ignore", "pipe", "inherit"],
        },
      ),
    );
    child.stdout?.once("data", () => resolve(child));
    child.once("error", reject);
  });
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null
      ? resolve()
      : child.once("exit", () => resolve()),
  );

describe.skipIf(!available)("several gateway processes on one database", () => {
  // 1,000 intents in `pnpm check`, 5,000 in `pnpm check:full` (HERALD_MP_INTENTS wins).
  const TOTAL = Number(process.env.HERALD_MP_INTENTS ?? gateOrFull(1_000, 5_000));
  it(`deliver ${TOTAL} intents over 50 targets with SIGKILLs: nothing lost, no duplicates, order kept`, {
    timeout: scaledMs(240_000),
  }, async () => {
    const TARGETS = 50;
    const schema = freshSchemaName("herald_mp");
    schemas.push(schema);
    const location = locationOf(TEST_POSTGRES_URL, schema);
    const store = await PostgresStateStore.connect({ connectionString: TEST_POSTGRES_URL, schema });
    for (let i = 0; i < TOTAL; i += 500) {
      await store.enqueueIntents(
        Array.from({ length: Math.min(500, TOTAL - i) }, (_, k) => {
          const n = i + k;
          return newIntent(outboundMessage(String(n), { target: { id: `t${n % TARGETS}` } }), {
            idempotencyKey: `mp-${n}`,
          });
        }),
      );
    }
    const platform = new FakePlatform({ idempotent: true });
    const server = await serveFakePlatform(platform);
    const config = (w: number) => ({ location, platformUrl: server.url, workerId: `w${w}` });
    const workers = await Promise.all([0, 1, 2, 3].map((w) => startWorker(config(w))));
    let kills = 0;
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return Math.floor((seed / 2 ** 31) * n);
    };
    try {
      const deadline = Date.now() + scaledMs(200_000);
      // A worker is killed each time another tenth of the backlog has been sent (10 %, 30 %, …
      // 90 %): kills follow the progress, not the clock, so a fast machine still sees them.
      let nextKill = Math.ceil(TOTAL / 10);
      for (;;) {
        const counts = await store.countIntents();
        if (counts.sent === TOTAL) break;
        if (Date.now() > deadline) throw new Error(`not drained: ${JSON.stringify(counts)}`);
        if (counts.sent < nextKill) {
          await new Promise((r) => setTimeout(r, 10));
          continue;
        }
        nextKill += Math.ceil(TOTAL / 5);
        const victim = random(4);
        const child = workers[victim] as ChildProcess;
        child.kill("SIGKILL");
        await exited(child);
        kills += 1;
        workers[victim] = await startWorker(config(victim));
      }
    } finally {
      for (const child of workers) child.kill("SIGTERM");
      await Promise.all(workers.map(exited));
      await server.close();
    }
    const counts = await store.countIntents();
    await store.close();
    const visible = platform.visible();
    const accepted = platform.calls.filter((c) => c.op === "send" && c.outcome === "ok").length;
    console.log(
      `multi-process: ${TOTAL} intents, ${kills} SIGKILLs, ${accepted} accepted send calls (${accepted - visible.length} replays absorbed by the idempotency key)`,
    );
    expect(kills).toBeGreaterThan(0);
    expect(counts.sent).toBe(TOTAL);
    expect(visible).toHaveLength(TOTAL);
    expect(new Set(visible.map((m) => m.key)).size).toBe(TOTAL);
    for (let t = 0; t < TARGETS; t++) {
      const order = platform.visible(`t${t}`).map((m) => Number(m.text));
      expect(order).toEqual([...order].sort((a, b) => a - b));
      expect(order).toHaveLength(TOTAL / TARGETS);
    }
  });
});
