/**
 * A burst of Telegram updates over the webhook of a real gateway process (`herald start` with
 * the Telegram plugin in webhook mode) against the Telegram fake, with SIGKILLs mid-backlog and
 * restarts ([H20]). Every update comes from its own private chat, so each chat must end with
 * exactly one reply. The handler appends `<text> <turn id> <pid>` to a file (fsynced) at the
 * start of every run, so handler runs are counted across processes and SIGKILLs; the turn id of
 * the run whose reply is stored (the intent carries it) tells the run that answered from a run a
 * SIGKILL interrupted before its reply was durable.
 *
 * Used by the bounded load test (`webhookBurst.test.ts`, in `pnpm check`) and by `pnpm soak`.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { FAKE_BOT, FakeTelegram } from "@herald/plugin-telegram/testing";

const CLI = {
  source: [
    "--conditions=herald-source",
    fileURLToPath(new URL("../../../packages/gateway/src/cli/main.ts", import.meta.url)),
  ],
  dist: [fileURLToPath(new URL("../../../packages/gateway/dist/cli/main.mjs", import.meta.url))],
};
const SECRET = "burst-secret_token-0123456789";

/** Options of {@link runWebhookBurst}. */
export type BurstOptions = {
  updates: number;
  /** Concurrent webhook connections. */
  connections: number;
  /** SIGKILLs, each after a random share of the acks (or `killAfterAcks`). */
  kills: number;
  /** Kill after exactly these ack counts (overrides the random points). */
  killAfterAcks?: number[];
  /** Share of sends the fake answers with a fault before storing anything (0–1). */
  faultRate?: number;
  /** `delivery.concurrency` of the gateway. @defaultValue 16 */
  concurrency?: number;
  /** Give up waiting for replies after this long, in ms. @defaultValue 120_000 */
  settleTimeoutMs?: number;
  /**
   * Which `herald` CLI runs the gateway: the TypeScript sources (no build needed) or the built
   * `dist` an operator runs from the published package (`pnpm build` first). Module loading
   * from source costs about twice as long, which shows in `livezAfterRestartMs`.
   * @defaultValue "source"
   */
  cli?: "source" | "dist";
  /** Extra Node flags of the gateway process (e.g. `--cpu-prof`). @defaultValue none */
  nodeArgs?: readonly string[];
  random?: () => number;
  log?: (line: string) => void;
};

/** What a burst measured. */
export type BurstReport = {
  updates: number;
  kills: number;
  /** Chats with no reply. */
  lost: number;
  /** Chats with more than one reply. */
  duplicated: number;
  /** Intents held as `unknown_after_send` at the end. */
  held: number;
  /**
   * Intents each SIGKILL left in `sending` (counted in the store between the kill and the
   * restart): what a kill can leave "maybe sent". The rest of `held` are calls the platform
   * answered with a 5xx or not in time (`maybe_sent` answers, the faulty sends among them).
   */
  sendingAtKill: number[];
  /** Held intents by failure reason (its first 80 characters). */
  heldReasons: Record<string, number>;
  /** Held intents most recently recorded as sent by the platform (the rest were never sent). */
  heldNeverSent: number;
  /** Handler runs per message: how many messages ran 0, 1, 2… times. */
  handlerRuns: Record<string, number>;
  /**
   * Runs a SIGKILL interrupted before their reply was durable (in a killed process, and no
   * intent carries their turn id): each is followed by the one run that answered.
   */
  interruptedRuns: number;
  /**
   * Runs neither interrupted that way nor the one whose reply is stored: a handler run again
   * though an earlier run's reply was durable, or twice in one process (goal 0).
   */
  extraRuns: number;
  /** Webhook ack latency, ms (200 answers). */
  ackP50Ms: number;
  ackP99Ms: number;
  /** Time from each restart's spawn to `/livez` answering, ms. */
  livezAfterRestartMs: number[];
  /** Time from each restart's spawn to `/healthz` answering 200 (ready or recovering), ms. */
  readyAfterRestartMs: number[];
  /** Intents by status at the end. */
  intents: Record<string, number>;
};

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const address = s.address();
      const port = typeof address === "object" && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Runs one burst; cleans up its temp folder and processes. */
export async function runWebhookBurst(o: BurstOptions): Promise<BurstReport> {
  const random = o.random ?? Math.random;
  const log = o.log ?? (() => {});
  const dir = mkdtempSync(join(tmpdir(), "herald-burst-"));
  const fake = await FakeTelegram.start();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const runsFile = join(dir, "handler-runs.log");
  const dbPath = join(dir, "state.db");
  writeFileSync(runsFile, "");
  writeFileSync(
    join(dir, "bot.mjs"),
    `import { open } from "node:fs/promises";
export default async function (turn) {
  // Durable before the run goes on: a SIGKILL right after still counts this run. Async I/O
  // (libuv's thread pool), as a real bot's would be: the counter must not block the
  // gateway's event loop and inflate the ack latencies this test measures.
  const file = await open(${JSON.stringify(runsFile)}, "a");
  try {
    await file.write(turn.text + " " + turn.turnId + " " + process.pid + "\\n");
    await file.sync();
  } finally {
    await file.close();
  }
  await turn.reply("re: " + turn.text);
}
`,
  );
  writeFileSync(
    join(dir, "herald.config.json"),
    JSON.stringify({
      store: { sqlite: { path: dbPath } },
      http: { host: "127.0.0.1", port },
      handler: "./bot.mjs",
      log: { level: "warn" },
      delivery: { workerId: "burst", concurrency: o.concurrency ?? 16 },
      channels: [
        {
          plugin: "@herald/plugin-telegram",
          account: "main",
          config: {
            apiRoot: fake.apiRoot,
            botUsername: FAKE_BOT.username,
            requestTimeoutMs: 5_000,
            // The only sender of this bot: probing settles a send a kill left in doubt.
            reconcile: "probe",
            receive: { mode: "webhook", secretTokenEnv: "BURST_WEBHOOK_SECRET" },
          },
        },
      ],
    }),
  );

  // One private chat (one user) per update.
  const chats = Array.from({ length: o.updates }, (_, i) =>
    fake.createChat({
      type: "private",
      user: { id: 90_000_000 + i, is_bot: false, first_name: `u${i}` },
    }),
  );
  const updates = chats.map(
    (chat, i) =>
      fake.userPost({
        chat: chat.id,
        text: `m${i}`,
        from: { id: chat.id, is_bot: false, first_name: `u${i}` },
      }).update,
  );

  if (o.faultRate) {
    // Faulty sends, spread over the run: a 429 with retry-after (nothing stored) or a 500
    // (stored nothing either, but the client cannot tell: `maybe_sent`, then reconciled).
    const faults = Math.round(o.updates * o.faultRate);
    const gap = Math.max(0, Math.floor(1 / o.faultRate) - 1);
    for (let i = 0; i < faults; i++) {
      const skip = Math.floor(random() * 2 * gap);
      fake.failNext(
        random() < 0.5
          ? { kind: "rate_limit", retryAfterMs: 1_000 }
          : { kind: "status", status: 500 },
        { op: "send", skip },
      );
    }
  }

  let child: ChildProcess | undefined;
  const killedPids = new Set<number>();
  const sendingAtKill: number[] = [];
  let stderr = "";
  const livez: number[] = [];
  const ready: number[] = [];
  /** Starts the gateway; `restart`: after a kill (only those are measured). */
  const spawnGateway = async (restart: boolean): Promise<void> => {
    const started = Date.now();
    child = spawn(
      process.execPath,
      [
        ...(o.nodeArgs ?? []),
        ...CLI[o.cli ?? "source"],
        "start",
        "-c",
        join(dir, "herald.config.json"),
      ],
      {
        env: {
          ...process.env,
          TELEGRAM_BOT_TOKEN: FAKE_BOT.token,
          BURST_WEBHOOK_SECRET: SECRET,
        },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    child.stderr?.on("data", (d) => {
      stderr = (stderr + d).slice(-20_000);
    });
    for (;;) {
      if (child.exitCode !== null) throw new Error(`gateway exited ${child.exitCode}: ${stderr}`);
      try {
        const r = await fetch(`${base}/livez`);
        await r.body?.cancel();
        if (r.status < 500) break;
      } catch {}
      await sleep(20);
      if (Date.now() - started > 60_000) throw new Error(`gateway did not start: ${stderr}`);
    }
    if (!restart) return;
    livez.push(Date.now() - started);
    // Readiness (`/healthz` 200: store open, receivers started), measured in the background.
    const self = child;
    void (async () => {
      while (self.exitCode === null && self.signalCode === null) {
        try {
          const r = await fetch(`${base}/healthz`);
          await r.body?.cancel();
          if (r.status === 200) return ready.push(Date.now() - started);
        } catch {}
        await sleep(50);
      }
    })();
  };

  const killPoints = (
    o.killAfterAcks
      ? [...o.killAfterAcks]
      : Array.from({ length: o.kills }, () => Math.floor((0.1 + 0.8 * random()) * o.updates))
  ).sort((a, b) => a - b);
  const killCount = killPoints.length;

  try {
    await spawnGateway(false);
    const acks: number[] = [];
    let acked = 0;
    let next = 0;
    let restarting: Promise<void> | undefined;
    const post = async (update: unknown): Promise<void> => {
      for (;;) {
        if (restarting) await restarting;
        const t0 = Date.now();
        try {
          const r = await fetch(`${base}/webhooks/telegram/main`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "x-telegram-bot-api-secret-token": SECRET,
            },
            body: JSON.stringify(update),
          });
          await r.body?.cancel();
          if (r.status === 200) {
            acks.push(Date.now() - t0);
            return;
          }
        } catch {}
        // Telegram retries an unanswered or failed delivery.
        await sleep(100);
      }
    };
    const worker = async () => {
      while (next < updates.length) {
        const update = updates[next++];
        await post(update);
        acked++;
        while (killPoints.length > 0 && acked >= (killPoints[0] ?? Infinity) && !restarting) {
          killPoints.shift();
          log(`SIGKILL after ${acked} acks`);
          if (child?.pid !== undefined) killedPids.add(child.pid);
          child?.kill("SIGKILL");
          const dead = child;
          restarting = (async () => {
            if (dead && dead.exitCode === null && dead.signalCode === null)
              await new Promise((r) => dead.once("exit", r));
            // What the kill left "maybe sent": the intents in `sending` now.
            const db = new DatabaseSync(dbPath);
            const row = db
              .prepare("SELECT count(*) AS n FROM intents WHERE status = 'sending'")
              .get() as { n: number };
            db.close();
            sendingAtKill.push(row.n);
            await spawnGateway(true);
          })().finally(() => {
            restarting = undefined;
          });
        }
      }
    };
    await Promise.all(Array.from({ length: o.connections }, worker));
    if (restarting) await restarting;
    log(`all ${updates.length} updates acked`);

    // Wait until every chat has its reply, or nothing moves any more.
    const deadline = Date.now() + (o.settleTimeoutMs ?? 120_000);
    const replies = () => chats.map((c) => fake.messages(c.id, { authorId: FAKE_BOT.id }).length);
    let last = -1;
    let still = 0;
    for (;;) {
      const answered = replies().filter((n) => n > 0).length;
      if (answered === chats.length) break;
      if (answered === last) still++;
      else still = 0;
      last = answered;
      if (Date.now() > deadline || still > 100) break;
      await sleep(100);
    }
    await sleep(500); // let a late duplicate show

    child?.kill("SIGTERM");
    if (child && child.exitCode === null) await new Promise((r) => child?.once("exit", r));

    const counts = replies();
    const db = new DatabaseSync(dbPath, { readOnly: true });
    const rows = db.prepare("SELECT status, count(*) AS n FROM intents GROUP BY status").all() as {
      status: string;
      n: number;
    }[];
    const heldFailures = (
      db.prepare("SELECT failure_json FROM intents WHERE status = 'unknown_after_send'").all() as {
        failure_json: string | null;
      }[]
    ).map((r) => r.failure_json ?? "");
    const heldReasons: Record<string, number> = {};
    for (const f of heldFailures) {
      let reason = f;
      try {
        const failure = JSON.parse(f) as { kind?: string; evidence?: string; message?: string };
        reason = `${failure.kind}/${failure.evidence}: ${failure.message ?? ""}`;
      } catch {}
      reason = reason.slice(0, 80);
      heldReasons[reason] = (heldReasons[reason] ?? 0) + 1;
    }
    const turnsWithIntent = new Set(
      (
        db.prepare("SELECT turn_id FROM intents WHERE turn_id IS NOT NULL").all() as {
          turn_id: string;
        }[]
      ).map((r) => r.turn_id),
    );
    db.close();
    const intents = Object.fromEntries(rows.map((r) => [r.status, r.n]));
    const runs = new Map<string, number>();
    let interruptedRuns = 0;
    let extraRuns = 0;
    const answering = new Map<string, number>();
    for (const line of readFileSync(runsFile, "utf8").split("\n").filter(Boolean)) {
      const [text = "", turnId = "", pid = ""] = line.split(" ");
      runs.set(text, (runs.get(text) ?? 0) + 1);
      if (turnsWithIntent.has(turnId)) answering.set(text, (answering.get(text) ?? 0) + 1);
      else if (killedPids.has(Number(pid))) interruptedRuns++;
      else extraRuns++;
    }
    for (const n of answering.values()) extraRuns += n - 1;
    // Each update's text (`m<i>`) names its message: runs per message, 0 included.
    const handlerRuns: Record<string, number> = {};
    for (let i = 0; i < updates.length; i++) {
      const n = runs.get(`m${i}`) ?? 0;
      handlerRuns[n] = (handlerRuns[n] ?? 0) + 1;
      if (n !== 1) {
        const texts = fake.messages(chats[i]?.id ?? 0).map((m) => m.text);
        log(
          `m${i}: handler ran ${n} times, ${counts[i]} replies; chat shows ${JSON.stringify(texts)}`,
        );
      }
    }
    const held = intents.unknown_after_send ?? 0;
    return {
      updates: updates.length,
      kills: killCount,
      lost: counts.filter((n) => n === 0).length,
      duplicated: counts.filter((n) => n > 1).length,
      held,
      sendingAtKill,
      heldReasons,
      heldNeverSent:
        held - Math.min(held, counts.filter((n) => n > 0).length - (intents.sent ?? 0)),
      handlerRuns,
      interruptedRuns,
      extraRuns,
      ackP50Ms: percentile(acks, 50),
      ackP99Ms: percentile(acks, 99),
      livezAfterRestartMs: livez,
      readyAfterRestartMs: ready,
      intents,
    };
  } finally {
    child?.kill("SIGKILL");
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
