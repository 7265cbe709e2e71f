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
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { trackChild } from "@herald/core/testing";
import type { PlatformFault } from "@herald/plugin-sdk/testing";
import { FAKE_BOT, FakeTelegram } from "@herald/plugin-telegram/testing";
import { accountBurst, type BurstAccount, type MessageFate } from "./burstAccounting.ts";

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
  /**
   * Messages silently lost: no reply and nothing an operator can see (no intent). Held,
   * failed and unsettled messages are counted in `fates`.
   */
  lost: number;
  /** Chats with more than one reply. */
  duplicated: number;
  /** Intents held as `unknown_after_send` at the end. */
  held: number;
  /** What became of each message (see `burstAccounting.ts`). */
  fates: Record<MessageFate, number>;
  /** Messages with a held intent by cause, and how many of them the platform shows anyway. */
  heldByCause: BurstAccount["held"];
  /** Faulty answers scripted on the fake, by kind (`rate_limit`, `status_500`, …). */
  faultsInjected: Record<string, number>;
  /**
   * Intents each SIGKILL left in `sending` (counted in the store between the kill and the
   * restart): what a kill can leave "maybe sent" (`fates.held_kill` are those still held).
   */
  sendingAtKill: number[];
  /** Held intents by failure reason (its first 80 characters). */
  heldReasons: Record<string, number>;
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
  /**
   * Webhook acks (200 answers) sent and answered while one gateway was ready throughout — the
   * steady state — and their latency, ms.
   */
  acks: number;
  ackP50Ms: number;
  ackP99Ms: number;
  ackMaxMs: number;
  /**
   * Acks of requests sent between a kill and the restarted gateway's readiness (or answered
   * after a kill): they waited for the new process to load and open, ms.
   */
  restartAcks: number;
  restartAckP99Ms: number;
  restartAckMaxMs: number;
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

  const faultsInjected: Record<string, number> = {};
  if (o.faultRate) {
    // Faulty sends, spread over the run, in Telegram's shapes (PLATFORMS.md §3a, §3c):
    // - half a 429 `retry_after: 1` (flood control): `not_dispatched`, retried after the wait;
    // - a quarter a 500 answer, nothing stored: `maybe_sent` (grammY cannot tell), and the
    //   probe cannot prove "not sent" — held for an operator under `hold`;
    // - a quarter a reset after the platform stored the message (the answer is lost):
    //   `maybe_sent`; the probe needs an earlier message of this bot in the chat (these chats
    //   have none), so it is held too though the user sees it — never posted twice.
    const faults = Math.round(o.updates * o.faultRate);
    const gap = Math.max(0, Math.floor(1 / o.faultRate) - 1);
    for (let i = 0; i < faults; i++) {
      const skip = Math.floor(random() * 2 * gap);
      const pick = random();
      const fault: PlatformFault =
        pick < 0.5
          ? { kind: "rate_limit", retryAfterMs: 1_000 }
          : pick < 0.75
            ? { kind: "status", status: 500, description: "Internal Server Error" }
            : { kind: "reset_after_accept" };
      const name = fault.kind === "status" ? "status_500" : fault.kind;
      faultsInjected[name] = (faultsInjected[name] ?? 0) + 1;
      fake.failNext(fault, { op: "send", skip });
    }
  }

  let child: ChildProcess | undefined;
  const killedPids = new Set<number>();
  const sendingAtKill: number[] = [];
  const sendingIdsAtKill = new Set<string>();
  /** A gateway is up and ready (`/healthz` 200); `epoch` counts the kills. */
  let serving = false;
  let epoch = 0;
  let stderr = "";
  const livez: number[] = [];
  const ready: number[] = [];
  /** Starts the gateway; `restart`: after a kill (only those are measured). */
  const spawnGateway = async (restart: boolean): Promise<void> => {
    const started = Date.now();
    child = trackChild(
      spawn(
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
      ),
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
    if (restart) livez.push(Date.now() - started);
    // Readiness (`/healthz` 200: store open, receivers started), in the background after a
    // restart; the first start is awaited (Telegram posts once the webhook is registered).
    const self = child;
    const readiness = (async () => {
      while (self.exitCode === null && self.signalCode === null) {
        try {
          const r = await fetch(`${base}/healthz`);
          await r.body?.cancel();
          if (r.status === 200) {
            serving = true;
            if (restart) ready.push(Date.now() - started);
            return;
          }
        } catch {}
        await sleep(50);
      }
    })();
    if (!restart) await readiness;
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
    const restartAcks: number[] = [];
    let acked = 0;
    let next = 0;
    let restarting: Promise<void> | undefined;
    const post = async (update: unknown): Promise<void> => {
      for (;;) {
        if (restarting) await restarting;
        const t0 = Date.now();
        const steady = serving;
        const at = epoch;
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
            // Sent and answered while one gateway was ready throughout: the steady state.
            (steady && serving && at === epoch ? acks : restartAcks).push(Date.now() - t0);
            return;
          }
          // Telegram retries a failed delivery later; a 503 says when (`Retry-After`, s).
          const retryAfterS = Number(r.headers.get("retry-after"));
          if (retryAfterS > 0) {
            await sleep(retryAfterS * 1_000);
            continue;
          }
        } catch {}
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
          serving = false;
          epoch += 1;
          const dead = child;
          restarting = (async () => {
            if (dead && dead.exitCode === null && dead.signalCode === null)
              await new Promise((r) => dead.once("exit", r));
            // What the kill left "maybe sent": the intents in `sending` now.
            const db = new DatabaseSync(dbPath);
            const ids = (
              db.prepare("SELECT id FROM intents WHERE status = 'sending'").all() as {
                id: string;
              }[]
            ).map((r) => r.id);
            db.close();
            sendingAtKill.push(ids.length);
            for (const id of ids) sendingIdsAtKill.add(id);
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

    const account = accountBurst({
      dbPath,
      runsFile,
      replies: replies(),
      sendingAtKill: sendingIdsAtKill,
      killedPids,
    });
    for (const line of account.details) log(line);
    const { fates } = account;
    return {
      updates: updates.length,
      kills: killCount,
      lost: fates.lost,
      duplicated: fates.duplicated,
      held: account.intents.unknown_after_send ?? 0,
      fates,
      heldByCause: account.held,
      faultsInjected,
      sendingAtKill,
      heldReasons: account.heldReasons,
      handlerRuns: account.handlerRuns,
      interruptedRuns: account.interruptedRuns,
      extraRuns: account.extraRuns,
      acks: acks.length,
      ackP50Ms: percentile(acks, 50),
      ackP99Ms: percentile(acks, 99),
      ackMaxMs: percentile(acks, 100),
      restartAcks: restartAcks.length,
      restartAckP99Ms: percentile(restartAcks, 99),
      restartAckMaxMs: percentile(restartAcks, 100),
      livezAfterRestartMs: livez,
      readyAfterRestartMs: ready,
      intents: account.intents,
    };
  } finally {
    child?.kill("SIGKILL");
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
