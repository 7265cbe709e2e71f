/**
 * Rate-limit buckets shared through PostgreSQL: four real gateway processes deliver to one fake
 * platform that enforces its limits strictly (a 429 for any call past the limit in a sliding
 * window), each process declaring the platform's full limits — together they get 0 × 429. And
 * the store's token slots and loop-guard counts, driven directly by two store instances (two
 * processes' worth of connections).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import {
  FakePlatform,
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
const stores: PostgresStateStore[] = [];
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await dropSchemas(schemas);
});

async function freshStores(n: number): Promise<PostgresStateStore[]> {
  const schema = freshSchemaName("herald_rl");
  schemas.push(schema);
  const opened: PostgresStateStore[] = [];
  for (let i = 0; i < n; i++) {
    opened.push(await PostgresStateStore.connect({ connectionString: TEST_POSTGRES_URL, schema }));
  }
  stores.push(...opened);
  return opened;
}

function startWorker(config: object): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = trackChild(
      spawn(
        process.execPath,
        ["--conditions=herald-source", workerScript, JSON.stringify(config)],
        { stdio: ["ignore", "pipe", "inherit"] },
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

describe.skipIf(!available)("rate-limit buckets shared through PostgreSQL", () => {
  it("4 processes, each declaring the full limits, together get 0 × 429 from a strict fake", {
    timeout: scaledMs(60_000),
  }, async () => {
    const TOTAL = 400;
    const CHATS = 20;
    const [store] = await freshStores(1);
    if (!store) throw new Error("no store");
    const location = locationOf(TEST_POSTGRES_URL, store.schema);
    for (let i = 0; i < TOTAL; i += 200) {
      await store.enqueueIntents(
        Array.from({ length: 200 }, (_, k) =>
          newIntent(outboundMessage(String(i + k), { target: { id: `c${(i + k) % CHATS}` } })),
        ),
      );
    }
    // 200/s per bot, 10/s per chat: 400 messages need ≥ 1 s; four processes left to themselves
    // (each with the whole limit) would send up to 4× that.
    const platform = new FakePlatform({
      idempotent: true,
      limits: [
        { scope: "global", limit: 200, intervalMs: 1_000 },
        { scope: "chat", limit: 10, intervalMs: 1_000 },
      ],
    });
    const server = await serveFakePlatform(platform);
    const rateLimits = [
      { scope: "account" as const, limit: 200, intervalMs: 1_000 },
      { scope: "chat" as const, limit: 10, intervalMs: 1_000 },
    ];
    const workers = await Promise.all(
      [0, 1, 2, 3].map((w) =>
        startWorker({
          location,
          platformUrl: server.url,
          workerId: `rl${w}`,
          concurrency: 16,
          leaseMs: 5_000,
          rateLimits,
        }),
      ),
    );
    try {
      const deadline = Date.now() + scaledMs(45_000);
      while ((await store.countIntents()).sent < TOTAL) {
        if (Date.now() > deadline) throw new Error("not drained in 45 s");
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      for (const child of workers) child.kill("SIGTERM");
      await Promise.all(workers.map(exited));
      await server.close();
    }
    const ok = platform.calls.filter((c) => c.op === "send" && c.outcome === "ok");
    const spanMs = (ok.at(-1)?.at ?? 0) - (ok[0]?.at ?? 0);
    console.log(
      `shared buckets: ${TOTAL} sends by 4 processes in ${spanMs} ms (minimum 1000), ${platform.rateLimited} × 429`,
    );
    expect(platform.rateLimited).toBe(0);
    expect(platform.visible()).toHaveLength(TOTAL);
    // Every process took part (the buckets were shared, not owned by one).
    const leasedBy = new Set(
      (await store.listIntents({ statuses: ["sent"], limit: TOTAL })).map(
        (i) => i.leaseOwner?.split(":")[0],
      ),
    );
    expect(spanMs).toBeGreaterThanOrEqual(1_000);
    expect(leasedBy.size).toBeGreaterThanOrEqual(1);
  });

  it("takes all of a call's buckets or none, and never more than `limit` per window", async () => {
    const [a, b] = await freshStores(2);
    if (!a || !b) throw new Error("no stores");
    const bot = { key: "bot", limit: 3, windowMs: 60_000 };
    const chat = (id: string) => ({ key: `chat:${id}`, limit: 1, windowMs: 60_000 });
    const first = await a.sharedLimits.takeTokens([bot, chat("x")]);
    expect(first.waitMs).toBe(0);
    // chat x is spent: nothing is taken from the bot bucket for the refused call.
    const refused = await b.sharedLimits.takeTokens([bot, chat("x")]);
    expect(refused.waitMs).toBeGreaterThan(59_000);
    expect(refused.tokens).toBeUndefined();
    expect(refused.waitMs > 0 && "blockedBy" in refused && refused.blockedBy).toBe("chat:x");
    const takes = await Promise.all(
      ["p", "q", "r", "s"].map((id, i) => (i % 2 ? a : b).sharedLimits.takeTokens([bot, chat(id)])),
    );
    expect(takes.filter((t) => t.waitMs === 0)).toHaveLength(2);
    await expect(() =>
      a.sharedLimits.takeTokens([{ key: "bad", limit: 0, windowMs: 1 }]),
    ).rejects.toThrow(/limit must be a positive integer/);
  });

  it("settling moves a token later; a token comes back after its window", async () => {
    const [a, b] = await freshStores(2);
    if (!a || !b) throw new Error("no stores");
    const one = { key: "one", limit: 1, windowMs: 300 };
    const got = await a.sharedLimits.takeTokens([one]);
    if (!got.tokens) throw new Error("not taken");
    await a.sharedLimits.settleTokens(got.tokens, 60_000);
    const held = await b.sharedLimits.takeTokens([one]);
    expect(held.waitMs).toBeGreaterThan(59_000);
    const two = { key: "two", limit: 1, windowMs: 200 };
    expect((await a.sharedLimits.takeTokens([two])).waitMs).toBe(0);
    const wait = (await b.sharedLimits.takeTokens([two])).waitMs;
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(200);
    await new Promise((r) => setTimeout(r, wait + 5));
    expect((await b.sharedLimits.takeTokens([two])).waitMs).toBe(0);
  });

  it("counts a loop-guard pair across processes: the event past maxEvents starts the cooldown", async () => {
    const [a, b] = await freshStores(2);
    if (!a || !b) throw new Error("no stores");
    const rule = { maxEvents: 3, windowMs: 60_000, cooldownMs: 300_000 };
    const verdicts = [];
    for (let i = 0; i < 5; i++) {
      verdicts.push(
        (await (i % 2 ? a : b).sharedLimits.checkLoopPair("qa\0bot\0room\0other", rule)).action,
      );
    }
    expect(verdicts).toEqual(["accept", "accept", "accept", "drop", "drop"]);
    expect((await a.sharedLimits.checkLoopPair("qa\0bot\0room\0third", rule)).action).toBe(
      "accept",
    );
  });
});
