/**
 * Crash tests with real child processes killed by SIGKILL at each lifecycle point (DESIGN §9).
 * The fake platform lives in this (parent) process, so what became visible survives the kill.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { isHeldForOperator } from "../message/intent.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { serveFakePlatform } from "../testing/fakePlatformServer.ts";
import { gateOrFull } from "../testing/suiteDepth.ts";
import { trackChild } from "../testing/teardown.ts";
import { scaledMs } from "../testing/timeScale.ts";

const worker = fileURLToPath(new URL("./testing/crashWorker.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "herald-crash-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
/** Crash runs at once (`pnpm soak` raises it for its 1,000 runs). */
const parallel = Math.max(1, Number(process.env.HERALD_CRASH_PARALLEL ?? 2));

type Mode = "idempotent" | "reconcile" | "at_least_once";

function runWorker(
  config: object,
  failpoints = "",
): Promise<{ code: number | null; signal: string | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = trackChild(
      spawn(process.execPath, [worker, JSON.stringify(config)], {
        env: { ...process.env, HERALD_FAILPOINTS: failpoints },
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    let stderr = "";
    let stdout = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.on("exit", (code, signal) => resolve({ code, signal, stderr, stdout }));
  });
}

/**
 * One randomized crash run: produce with a failpoint armed, restart to drain, check the platform.
 * With `lateStoreMs`, the first send of every chat times out and the platform stores it that
 * much later (after the kill, while the next process recovers).
 */
async function crashRun(
  mode: Mode,
  failpoint: string,
  hit: number,
  count: number,
  lateStoreMs?: number,
) {
  const platform = new FakePlatform({ idempotent: mode === "idempotent" });
  if (lateStoreMs !== undefined) {
    platform.failNext({ type: "store-late", delayMs: lateStoreMs }, 3, "send");
  }
  const server = await serveFakePlatform(platform);
  const storePath = join(dir, `run-${++files}.db`);
  const base = {
    storePath,
    platformUrl: server.url,
    mode,
    count,
    chats: 3,
    workerId: "w1",
    // The settle delay: a late store lands within the declared request timeout.
    requestTimeoutMs: lateStoreMs === undefined ? 100 : lateStoreMs + 100,
  };
  try {
    const first = await runWorker({ ...base, phase: "produce" }, `${failpoint}=kill@${hit}`);
    const second = await runWorker({ ...base, phase: "drain" });
    if (second.code !== 0) throw new Error(`drain failed (${second.code}): ${second.stderr}`);
    const store = new SqliteStateStore({ path: storePath });
    const intents = await store.listIntents({ limit: 1_000 });
    await store.close();
    await new Promise((r) => setTimeout(r, lateStoreMs ?? 0)); // let every late store land
    const perIntent = intents.map((i) => ({
      status: i.status,
      visible: platform.visible().filter((m) => m.key?.startsWith(`${i.idempotencyKey}#`)).length,
    }));
    return { killed: first.signal === "SIGKILL", perIntent, visible: platform.visible(), intents };
  } finally {
    await server.close();
  }
}

describe("C02: no-send failures, then a kill and a restart", () => {
  it("keeps the intent pending with its attempt count and backoff, then sends exactly once", async () => {
    const platform = new FakePlatform();
    platform.failNext({ type: "refuse" }, 3, "send");
    const server = await serveFakePlatform(platform);
    const storePath = join(dir, `c02-${++files}.db`);
    const base = {
      storePath,
      platformUrl: server.url,
      mode: "reconcile",
      count: 1,
      chats: 1,
      workerId: "c02",
    };
    try {
      const first = await runWorker(
        { ...base, phase: "produce" },
        "delivery.after_retry_scheduled=kill@1",
      );
      expect(first.signal).toBe("SIGKILL");
      const store = new SqliteStateStore({ path: storePath });
      const [afterKill] = await store.listIntents();
      expect(afterKill).toMatchObject({
        status: "pending",
        attempt: 1,
        failure: { kind: "transient", evidence: "not_dispatched" },
      });
      // A backoff after the failure (compared with the failure's time, not the row's write,
      // which a busy machine can delay past a 10 ms backoff).
      expect(afterKill?.nextAttemptAt).toBeGreaterThan(afterKill?.failure?.at ?? Infinity);
      const second = await runWorker({ ...base, phase: "drain" });
      expect(second.code).toBe(0);
      const [done] = await store.listIntents();
      await store.close();
      expect(done).toMatchObject({ status: "sent", attempt: 4 });
      expect(platform.visible().map((m) => m.text)).toEqual(["m0"]);
    } finally {
      await server.close();
    }
  });
});

describe("[H19] SIGKILL around the folded first attempt (enqueue + `sending` in one commit)", () => {
  /** One message, killed at `failpoint` in the first run; what the store and platform hold. */
  async function foldRun(
    mode: Mode | "hold",
    failpoint: string,
    more: { thread?: "main" | "worker"; count?: number; groupCommit?: false } = {},
  ) {
    const platform = new FakePlatform({ idempotent: mode === "idempotent" });
    const server = await serveFakePlatform(platform);
    const storePath = join(dir, `fold-${++files}.db`);
    const base = {
      storePath,
      platformUrl: server.url,
      mode,
      count: more.count ?? 1,
      chats: 1,
      workerId: "fold",
      thread: more.thread ?? "main",
      ...(more.groupCommit === false ? { groupCommit: false } : {}),
      requestTimeoutMs: 100,
    };
    try {
      const first = await runWorker({ ...base, phase: "produce" }, `${failpoint}=kill@1`);
      const store = new SqliteStateStore({ path: storePath });
      const atKill = await store.listIntents();
      const visibleAtKill = platform.visible().length;
      const second = await runWorker({ ...base, phase: "drain" });
      if (second.code !== 0) throw new Error(`drain failed (${second.code}): ${second.stderr}`);
      const after = await store.listIntents();
      await store.close();
      return { first, atKill, visibleAtKill, after, visible: platform.visible() };
    } finally {
      await server.close();
    }
  }

  for (const mode of ["idempotent", "reconcile", "at_least_once"] as const) {
    it(`${mode}: killed after the commit, before the platform call — \`sending\` at once, then delivered exactly once after the restart, never held`, async () => {
      const r = await foldRun(mode, "send.after_begin");
      expect(r.first.signal).toBe("SIGKILL");
      expect(r.first.stdout).not.toContain("receipt");
      // The enqueue wrote the intent straight in `sending` (not `pending` first) …
      expect(r.atKill).toMatchObject([{ status: "sending", attempt: 1 }]);
      expect(r.visibleAtKill).toBe(0); // … and the platform never saw it
      // … and the restart resolves the unknown send (replay under the key / lookup / resend) without an operator.
      expect(r.after).toMatchObject([{ status: "sent" }]);
      expect(r.visible.map((m) => m.text)).toEqual(["m0"]);
    });
  }

  it("hold (no key, no reconciler): killed after the folded commit, before the platform call — `sending`, then held for an operator after the restart, never sent twice", async () => {
    const r = await foldRun("hold", "send.after_begin");
    expect(r.first.signal).toBe("SIGKILL");
    expect(r.first.stdout).not.toContain("receipt");
    expect(r.atKill).toMatchObject([{ status: "sending", attempt: 1 }]);
    expect(r.visibleAtKill).toBe(0);
    expect(r.after).toMatchObject([{ status: "unknown_after_send", attempt: 1 }]);
    expect(r.after.map(isHeldForOperator)).toEqual([true]);
    expect(r.visible).toEqual([]);
  });

  it("hold, group commit off (three steps): killed after its own `sending` commit — the same row, held the same way", async () => {
    const r = await foldRun("hold", "send.after_sending", { groupCommit: false });
    expect(r.first.signal).toBe("SIGKILL");
    expect(r.atKill).toMatchObject([{ status: "sending", attempt: 1 }]);
    expect(r.visibleAtKill).toBe(0);
    expect(r.after).toMatchObject([{ status: "unknown_after_send", attempt: 1 }]);
    expect(r.after.map(isHeldForOperator)).toEqual([true]);
    expect(r.visible).toEqual([]);
  });

  it("hold, group commit off (three steps): killed after the enqueue — `pending`, sent once after the restart", async () => {
    const r = await foldRun("hold", "send.after_begin", { groupCommit: false });
    expect(r.first.signal).toBe("SIGKILL");
    expect(r.atKill).toMatchObject([{ status: "pending", attempt: 0 }]);
    expect(r.after).toMatchObject([{ status: "sent" }]);
    expect(r.visible.map((m) => m.text)).toEqual(["m0"]);
  });

  for (const thread of ["main", "worker"] as const) {
    for (const mode of ["idempotent", "reconcile", "hold", "at_least_once"] as const) {
      const held = mode === "hold";
      it(`${thread} thread store, ${mode}, three sends to one chat, killed after the first commit: only the first \`sending\`, the backlog \`pending\` (not folded), ${held ? "the first held and the backlog waiting behind it, nothing sent" : "all delivered once in order"}`, async () => {
        const r = await foldRun(mode, "send.after_begin", { thread, count: 3 });
        expect(r.first.signal).toBe("SIGKILL");
        expect(r.first.stdout).not.toContain("receipt");
        const byText = (rows: typeof r.atKill) =>
          [...rows].sort((a, b) => a.seq - b.seq).map((i) => [i.message.body?.markdown, i.status]);
        const pending = byText(r.atKill).filter(([, s]) => s === "pending");
        expect(byText(r.atKill).filter(([, s]) => s === "sending")).toEqual([
          [byText(r.atKill)[0]?.[0], "sending"],
        ]);
        expect(pending).toHaveLength(r.atKill.length - 1);
        expect(r.visibleAtKill).toBe(0);
        expect(r.after).toHaveLength(r.atKill.length);
        if (held) {
          const [first, ...behind] = [...r.after].sort((a, b) => a.seq - b.seq);
          expect(first && isHeldForOperator(first)).toBe(true);
          expect(behind.map((i) => i.status)).toEqual(behind.map(() => "pending"));
          expect(r.visible).toEqual([]);
          return;
        }
        expect(r.after.map((i) => i.status)).toEqual(r.after.map(() => "sent"));
        const texts = [...r.after]
          .sort((a, b) => a.seq - b.seq)
          .map((i) => i.message.body?.markdown);
        expect(r.visible.map((m) => m.text)).toEqual(texts);
      });
    }
  }

  for (const mode of ["idempotent", "hold"] as const) {
    it(`worker thread store, ${mode}, killed inside the folded transaction: nothing recorded, nothing sent`, async () => {
      const r = await foldRun(mode, "store.enqueue", { thread: "worker" });
      expect(r.first.signal).toBe("SIGKILL");
      expect(r.first.stdout).not.toContain("receipt");
      expect(r.atKill).toEqual([]);
      expect(r.after).toEqual([]);
      expect(r.visible).toEqual([]);
    });

    it(`${mode}: killed before the commit: nothing recorded, nothing sent, no receipt`, async () => {
      const r = await foldRun(mode, "store.enqueue");
      expect(r.first.signal).toBe("SIGKILL");
      expect(r.first.stdout).not.toContain("receipt");
      expect(r.atKill).toEqual([]);
      expect(r.after).toEqual([]);
      expect(r.visible).toEqual([]);
    });
  }
});

describe("randomized SIGKILL at every lifecycle point", () => {
  // 48 in `pnpm check`: each of the 48 (mode, kill point, hit) combinations once (~1 s each on a
  // quiet machine, 3 s on a slow one); 120 in `pnpm check:full` (each at least twice); `pnpm
  // soak` runs 1,000.
  const RUNS = Number(process.env.HERALD_CRASH_RUNS ?? gateOrFull(48, 120));
  const points = [
    "send.after_begin",
    "send.after_sending",
    "send.after_platform_accept",
    "send.after_commit",
  ];
  const modes: Mode[] = ["idempotent", "reconcile", "at_least_once"];

  it(`loses nothing and duplicates only under at_least_once (${RUNS} runs)`, {
    // ~1 s per run on a quiet machine; `pnpm soak` runs 1,000 on a shared one.
    timeout: scaledMs(Math.max(600_000, RUNS * 5_000)),
  }, async () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return Math.floor((seed / 2 ** 31) * n);
    };
    // Every (mode, kill point, hit) combination, in a shuffled order (seeded: a failure
    // reproduces), repeated until RUNS: 48 runs kill each of the 48 once, 120 each at least twice.
    const combos = modes.flatMap((mode) =>
      points.flatMap((point) => [1, 2, 3, 4].map((hit) => ({ mode, point, hit }))),
    );
    for (let i = combos.length - 1; i > 0; i--) {
      const j = random(i + 1);
      [combos[i], combos[j]] = [combos[j] as (typeof combos)[0], combos[i] as (typeof combos)[0]];
    }
    const plans = Array.from(
      { length: RUNS },
      (_, r) => combos[r % combos.length] as (typeof combos)[0],
    );
    const stats = {
      runs: 0,
      killed: 0,
      intents: 0,
      lost: 0,
      duplicates: { idempotent: 0, reconcile: 0, at_least_once: 0 },
      maxPerIntent: 0,
    };
    for (let i = 0; i < plans.length; i += parallel) {
      const results = await Promise.all(
        plans
          .slice(i, i + parallel)
          .map(async (p) => ({ p, r: await crashRun(p.mode, p.point, p.hit, 4) })),
      );
      for (const { p, r } of results) {
        stats.runs += 1;
        if (r.killed) stats.killed += 1;
        for (const x of r.perIntent) {
          stats.intents += 1;
          if (x.status !== "sent" || x.visible === 0) stats.lost += 1;
          if (x.visible > 1) stats.duplicates[p.mode] += x.visible - 1;
          stats.maxPerIntent = Math.max(stats.maxPerIntent, x.visible);
        }
      }
    }
    console.log(`crash runs: ${JSON.stringify(stats)}`);
    expect(stats.killed).toBe(RUNS);
    expect(stats.lost).toBe(0);
    expect(stats.duplicates.idempotent).toBe(0);
    expect(stats.duplicates.reconcile).toBe(0);
    expect(stats.maxPerIntent).toBeLessThanOrEqual(2);
  });
});

describe("SIGKILL during a timed-out send that the platform stores late", () => {
  const RUNS = Math.max(
    6,
    Math.round(Number(process.env.HERALD_CRASH_RUNS ?? gateOrFull(48, 120)) / 5),
  );
  const points = ["send.after_failed_call", "send.after_platform_accept", "send.after_sending"];
  const modes: Mode[] = ["idempotent", "reconcile", "at_least_once"];

  it(`loses nothing and never duplicates on keyed or reconciled channels (${RUNS} runs)`, {
    // ~1 s per run on a quiet machine; `pnpm soak` runs 1,000 on a shared one.
    timeout: scaledMs(Math.max(600_000, RUNS * 5_000)),
  }, async () => {
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return Math.floor((seed / 2 ** 31) * n);
    };
    const stats = {
      runs: 0,
      killed: 0,
      lost: 0,
      duplicates: { idempotent: 0, reconcile: 0, at_least_once: 0 },
    };
    const plans = Array.from({ length: RUNS }, (_, r) => ({
      mode: modes[r % modes.length] as Mode,
      // Mostly the kill right after the timed-out call; sometimes before the next one.
      point: points[random(4) === 0 ? 2 : random(2)] as string,
      hit: 1 + random(3),
      lateMs: 50 + random(150),
    }));
    for (let i = 0; i < plans.length; i += parallel) {
      const results = await Promise.all(
        plans
          .slice(i, i + parallel)
          .map(async (p) => ({ p, r: await crashRun(p.mode, p.point, p.hit, 4, p.lateMs) })),
      );
      for (const { p, r } of results) {
        stats.runs += 1;
        if (r.killed) stats.killed += 1;
        for (const x of r.perIntent) {
          if (x.status !== "sent" || x.visible === 0) stats.lost += 1;
          if (x.visible > 1) stats.duplicates[p.mode] += x.visible - 1;
        }
      }
    }
    console.log(`late-store crash runs: ${JSON.stringify(stats)}`);
    expect(stats.killed).toBeGreaterThanOrEqual(Math.ceil(RUNS / 2));
    expect(stats.lost).toBe(0);
    expect(stats.duplicates.idempotent).toBe(0);
    expect(stats.duplicates.reconcile).toBe(0);
  });
});
