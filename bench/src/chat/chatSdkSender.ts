/**
 * Chat SDK (npm `chat` + the channel's `@chat-adapter/*`) as the sender, pointed at the fake
 * (`chatSdkAdapters.ts`). Chat SDK posts straight to the platform: it has no outbound queue, no
 * rate-limit scheduler and no idempotency for sends. What each adapter does with a 429 or a lost
 * answer is its own: Telegram and Google Chat throw `AdapterRateLimitError` for a 429 and a
 * network error for a reset; Slack's `@slack/web-api` waits out a 429 itself and retries a reset
 * (its default retry policy, up to 10 times); Discord throws a `NetworkError` carrying the HTTP
 * status for any non-2xx answer and a raw `fetch failed` for a reset.
 *
 * So the bench gives it what an app would add: `CONCURRENCY` posts in flight, a 429 waits its
 * announced wait (`retry_after`, else 1 s) and is retried, a network error is retried up to
 * `NETWORK_RETRIES` times after 1 s, and every confirmed post is appended to a done file; a
 * restart posts what the file does not list.
 *
 * @module
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createMemoryState } from "@chat-adapter/state-memory";
import { Chat, ConsoleLogger } from "chat";
import { answer } from "../proc.ts";
import { chatSdkChannel } from "./chatSdkAdapters.ts";
import { type SenderConfig, scheduled } from "./schedule.ts";

const CONCURRENCY = 16;
const NETWORK_RETRIES = 3;
/** Socket-level failures: the request may or may not have reached the platform. */
const SOCKET_CODES = new Set(["ECONNRESET", "UND_ERR_SOCKET", "EPIPE", "ECONNREFUSED"]);

type Verdict = { kind: "rate_limit"; waitMs: number } | { kind: "network" } | { kind: "other" };

type ErrorLike = {
  name?: string;
  code?: unknown;
  status?: unknown;
  message?: string;
  retryAfter?: number;
  retryAfterMs?: number;
  cause?: unknown;
  originalError?: unknown;
  response?: { status?: unknown };
};

/** An error and its causes (`cause`, Chat SDK's `originalError`). */
function chain(error: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  let e = error as ErrorLike | undefined;
  while (e && typeof e === "object" && out.length < 5) {
    out.push(e);
    e = (e.originalError ?? e.cause) as ErrorLike | undefined;
  }
  return out;
}

/** The wait a Discord 429 body announces (`retry_after`, seconds), in ms. */
function bodyRetryAfterMs(message: string | undefined): number | undefined {
  const m = /"retry_after"\s*:\s*([\d.]+)/.exec(message ?? "");
  return m ? Math.ceil(Number(m[1]) * 1_000) : undefined;
}

/** What the app does with a failed post. */
function classify(error: unknown): Verdict {
  const all = chain(error);
  for (const e of all) {
    if (e.name === "RateLimitError" || e.name === "AdapterRateLimitError") {
      const waitMs = e.retryAfterMs ?? (e.retryAfter ?? 1) * 1_000;
      return { kind: "rate_limit", waitMs };
    }
  }
  const status = all
    .map((e) => e.status ?? e.response?.status ?? (typeof e.code === "number" ? e.code : undefined))
    .find((s) => typeof s === "number");
  if (status === 429) {
    const waitMs = all.map((e) => bodyRetryAfterMs(e.message)).find((w) => w !== undefined);
    return { kind: "rate_limit", waitMs: waitMs ?? 1_000 };
  }
  if (status !== undefined) return { kind: "other" };
  const network = all.some(
    (e) =>
      e.name === "NetworkError" ||
      SOCKET_CODES.has(String(e.code)) ||
      /fetch failed|socket hang up/.test(e.message ?? ""),
  );
  return network ? { kind: "network" } : { kind: "other" };
}

const c = JSON.parse(process.argv[2] ?? "{}") as SenderConfig;
const logger = new ConsoleLogger("silent");
const platform = chatSdkChannel(c, logger);
const bot = new Chat({
  userName: "herald_test_bot",
  adapters: { [platform.name]: platform.adapter },
  state: createMemoryState(),
  logger,
});
await bot.initialize();

const donePath = join(c.stateDir, "done.txt");
const done = new Set(existsSync(donePath) ? readFileSync(donePath, "utf8").split("\n") : []);
const todo = Array.from({ length: c.count }, (_, i) => scheduled(c, i)).filter(
  (m) => !done.has(m.id),
);
const stats = { posted: 0, gaveUp: 0, rateLimited: 0, networkErrors: 0 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function post(m: ReturnType<typeof scheduled>): Promise<void> {
  let networkErrors = 0;
  for (;;) {
    try {
      await bot.channel(platform.channelId(m.target)).post(m.text);
      appendFileSync(donePath, `${m.id}\n`);
      stats.posted += 1;
      return;
    } catch (error) {
      const verdict = classify(error);
      if (verdict.kind === "rate_limit") {
        stats.rateLimited += 1;
        await sleep(verdict.waitMs);
        continue;
      }
      if (verdict.kind === "network" && networkErrors < NETWORK_RETRIES) {
        networkErrors += 1;
        stats.networkErrors += 1;
        await sleep(1_000);
        continue;
      }
      stats.gaveUp += 1;
      process.stderr.write(`chat sdk ${c.channel}: gave up on ${m.id}: ${String(error)}\n`);
      return;
    }
  }
}

let next = 0;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < todo.length) await post(todo[next++] as ReturnType<typeof scheduled>);
  }),
);
answer(stats);
process.exit(0);
