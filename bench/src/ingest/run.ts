/**
 * The receive side: inbound webhook acks per second and their latency, herald's Telegram webhook
 * receiver (dedupe on: every update's record committed before its 200) next to the floor (a bare
 * `node:http` server reading the body and answering 200) and Slack's Bolt (`HTTPReceiver`), each
 * receiver in its own process (`server.ts`), driven by the same load generator: `requests` POSTs
 * with `inFlight` of them outstanding on kept-alive connections (Telegram opens up to 40 to a
 * webhook, its `max_connections` default), after `warmup` unmeasured ones. Every update is new
 * (unique `update_id` / `event_id`). Runs are interleaved: round 1 of every receiver, then
 * round 2…
 *
 * @module
 */
import { createHmac } from "node:crypto";
import { Agent, request } from "node:http";
import { fileURLToPath } from "node:url";
import { kill, startChild } from "../proc.ts";
import { CPU_PATH, type IngestKind, SLACK_SIGNING_SECRET, TELEGRAM_SECRET } from "./secrets.ts";

const serverScript = fileURLToPath(new URL("./server.ts", import.meta.url));

/** Options of {@link runIngest}. */
export type IngestOptions = {
  requests: number;
  warmup: number;
  inFlight: number;
  rounds: number;
  dir: string;
  kinds: IngestKind[];
};

/** One run of one receiver. */
export type IngestSample = {
  acksPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** The receiver process's CPU time per webhook (every thread; what the host's load changes least). */
  cpuMsPerAck: number;
};

/** One receiver's runs in round order (`undefined`: that round failed). */
export type IngestResult = {
  kind: IngestKind;
  samples: Array<IngestSample | undefined>;
  failed?: string;
};

type Req = { body: string; headers: Record<string, string> };

/** Update `i` as Telegram posts it: a private text message, its own `update_id`. */
function telegramRequest(i: number): Req {
  const body = JSON.stringify({
    update_id: 100_000 + i,
    message: {
      message_id: i + 1,
      date: 1_700_000_000,
      chat: { id: 10_000 + (i % 100), type: "private", first_name: "Alice" },
      from: { id: 10_000 + (i % 100), is_bot: false, first_name: "Alice" },
      text: `message ${i}`,
    },
  });
  return {
    body,
    headers: {
      "content-type": "application/json",
      "x-telegram-bot-api-secret-token": TELEGRAM_SECRET,
    },
  };
}

/** Event `i` as Slack's Events API posts it, signed with the signing secret (v0, HMAC-SHA256). */
function slackRequest(i: number, timestamp: string): Req {
  const body = JSON.stringify({
    token: "legacy",
    team_id: "T0BENCH",
    api_app_id: "A0BENCH",
    type: "event_callback",
    event_id: `Ev${100_000 + i}`,
    event_time: 1_700_000_000,
    event: {
      type: "message",
      channel: `C${i % 100}`,
      user: "U0ALICE",
      text: `message ${i}`,
      ts: `1700000000.${String(i).padStart(6, "0")}`,
      channel_type: "channel",
    },
    authorizations: [{ team_id: "T0BENCH", user_id: "U0BOT", is_bot: true }],
  });
  const signature = `v0=${createHmac("sha256", SLACK_SIGNING_SECRET).update(`v0:${timestamp}:${body}`).digest("hex")}`;
  return {
    body,
    headers: {
      "content-type": "application/json",
      "x-slack-request-timestamp": timestamp,
      "x-slack-signature": signature,
    },
  };
}

function post(agent: Agent, url: URL, req: Req): Promise<number> {
  return new Promise((resolve, reject) => {
    const r = request(
      url,
      {
        method: "POST",
        agent,
        headers: { ...req.headers, "content-length": Buffer.byteLength(req.body) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    r.on("error", reject);
    r.end(req.body);
  });
}

async function cpuOf(url: URL): Promise<number> {
  const res = await fetch(url);
  return ((await res.json()) as { cpuMs: number }).cpuMs;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

/** Sends `reqs` with `inFlight` outstanding; every answer must be a 200. */
async function drive(
  url: URL,
  reqs: Req[],
  inFlight: number,
): Promise<Omit<IngestSample, "cpuMsPerAck">> {
  const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  try {
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < reqs.length) {
          const req = reqs[next++] as Req;
          const t = performance.now();
          const status = await post(agent, url, req);
          latencies.push(performance.now() - t);
          if (status !== 200) throw new Error(`answered ${status}, not 200`);
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  const ms = performance.now() - t0;
  return {
    acksPerSec: (reqs.length / ms) * 1000,
    p50Ms: pct(latencies, 50),
    p99Ms: pct(latencies, 99),
  };
}

async function once(kind: IngestKind, o: IngestOptions): Promise<IngestSample> {
  const child = startChild(serverScript, { kind, dir: o.dir });
  try {
    const { url } = JSON.parse(await child.firstLine) as { url: string };
    const timestamp = String(Math.floor(Date.now() / 1000));
    const make = (i: number) => (kind === "bolt" ? slackRequest(i, timestamp) : telegramRequest(i));
    // Built before the clock starts: the generator's own work is the same for every receiver.
    const warm = Array.from({ length: o.warmup }, (_, i) => make(i));
    const reqs = Array.from({ length: o.requests }, (_, i) => make(o.warmup + i));
    await drive(new URL(url), warm, o.inFlight);
    const cpuUrl = new URL(CPU_PATH, url);
    const before = await cpuOf(cpuUrl);
    const sample = await drive(new URL(url), reqs, o.inFlight);
    // What a receiver does after its acks (herald's handler runs, its records complete) counts.
    await new Promise((r) => setTimeout(r, 1_000));
    const cpuMsPerAck = ((await cpuOf(cpuUrl)) - before) / reqs.length;
    return { ...sample, cpuMsPerAck };
  } finally {
    await kill(child);
  }
}

/** Runs every receiver `rounds` times, interleaved; a failed run keeps its row. */
export async function runIngest(
  o: IngestOptions,
  log: (line: string) => void,
): Promise<IngestResult[]> {
  const results: IngestResult[] = o.kinds.map((kind) => ({ kind, samples: [] }));
  for (let round = 1; round <= o.rounds; round++) {
    for (const r of results) {
      log(`  ingest round ${round}/${o.rounds}: ${r.kind}, ${o.requests} webhooks…`);
      try {
        r.samples.push(await once(r.kind, o));
      } catch (e) {
        const why = (e instanceof Error ? e.message : String(e)).split("\n")[0] ?? "";
        r.samples.push(undefined);
        r.failed ??= why;
        log(`  ingest ${r.kind} failed: ${why}`);
      }
    }
  }
  return results;
}
