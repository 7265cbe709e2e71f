/**
 * Chat SDK (npm `chat` + `@chat-adapter/telegram`) as the sender, pointed at the fake Bot API
 * with the adapter's own `apiBaseUrl` option. Chat SDK posts straight to the Bot API: it has no
 * outbound queue, no rate-limit scheduler and no idempotency for sends — a 429 is thrown as a
 * `AdapterRateLimitError` with its `retry_after`, a lost answer as a `NetworkError`. So the bench gives
 * it what an app would add: `CONCURRENCY` posts in flight, a 429 waits `retry_after` and is
 * retried, a network error is retried up to `NETWORK_RETRIES` times after 1 s, and every
 * confirmed post is appended to a done file; a restart posts what the file does not list.
 *
 * @module
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createMemoryState } from "@chat-adapter/state-memory";
import { createTelegramAdapter } from "@chat-adapter/telegram";
import { Chat, ConsoleLogger } from "chat";
import { answer } from "../proc.ts";
import { type SenderConfig, scheduled } from "./schedule.ts";

const CONCURRENCY = 16;
const NETWORK_RETRIES = 3;

const c = JSON.parse(process.argv[2] ?? "{}") as SenderConfig;
const logger = new ConsoleLogger("error");
const telegram = createTelegramAdapter({
  botToken: c.token,
  apiBaseUrl: c.apiRoot,
  mode: "webhook",
  secretToken: "bench-secret",
  logger,
});
const bot = new Chat({
  userName: "herald_test_bot",
  adapters: { telegram },
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
      await bot.channel(`telegram:${m.chatId}`).post(m.text);
      appendFileSync(donePath, `${m.id}\n`);
      stats.posted += 1;
      return;
    } catch (error) {
      const e = error as { name?: string; retryAfter?: number; retryAfterMs?: number };
      if (e.name === "RateLimitError" || e.name === "AdapterRateLimitError") {
        stats.rateLimited += 1;
        await sleep(e.retryAfterMs ?? (e.retryAfter ?? 1) * 1_000);
        continue;
      }
      if (e.name === "NetworkError" && networkErrors < NETWORK_RETRIES) {
        networkErrors += 1;
        stats.networkErrors += 1;
        await sleep(1_000);
        continue;
      }
      stats.gaveUp += 1;
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
