/**
 * The Web API client: `@slack/web-api`'s `WebClient` as herald configures it for one account
 * (PLATFORMS.md §1 "test-harness settings"):
 *
 * - `slackApiUrl` from the config (a fake on 127.0.0.1 in tests);
 * - `retryConfig: { retries: 0 }` and `rejectRateLimitedCalls: true`: the durable queue is the
 *   one place that retries, after classifying (the SDK's default would retry a post for half an
 *   hour and sleep on every 429, duplicating and hiding);
 * - a `fetch` hook that turns a 429 without a usable `Retry-After` into a typed rate limit (the
 *   SDK would throw an untyped error);
 * - a logger that drops the SDK's chatter and never prints a token.
 *
 * @module
 */
import { type Logger, LogLevel, WebClient } from "@slack/web-api";
import { SlackRateLimitWithoutWaitError } from "./errors.ts";

/** Options of {@link createSlackClient}. */
export type SlackClientOptions = {
  /** The bot token (`xoxb-…`) or app-level token (`xapp-…`). */
  token: string;
  /** Web API root with a trailing `/`. @defaultValue "https://slack.com/api/" */
  slackApiUrl?: string;
  /** Per-request timeout in ms; a timed-out request is `maybe_sent`. @defaultValue 10_000 */
  timeoutMs?: number;
};

/** A `@slack/logger` that keeps nothing: herald logs classified failures itself. */
function quietLogger(): Logger {
  let level = LogLevel.ERROR;
  return {
    debug() {},
    info() {},
    warn() {},
    error() {},
    setLevel(l) {
      level = l;
    },
    getLevel: () => level,
    setName() {},
  };
}

/** The Web API method of a request URL (`…/api/chat.postMessage` → `chat.postMessage`). */
function methodOf(url: string): string {
  return url.slice(url.lastIndexOf("/") + 1) || url;
}

/** Node's fetch, with a 429 lacking a numeric `Retry-After` made a typed rate limit. */
const heraldFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  if (response.status === 429) {
    const header = response.headers.get("retry-after");
    if (header === null || Number.isNaN(Number.parseInt(header, 10))) {
      await response.body?.cancel();
      throw new SlackRateLimitWithoutWaitError(methodOf(String(input)));
    }
  }
  return response;
};

/**
 * Creates the `WebClient` herald uses for one Slack account.
 *
 * @example
 * const client = createSlackClient({ token, slackApiUrl: "http://127.0.0.1:3000/api/" });
 * await client.auth.test(); // https://docs.slack.dev/reference/methods/auth.test
 */
export function createSlackClient(options: SlackClientOptions): WebClient {
  return new WebClient(options.token, {
    slackApiUrl: options.slackApiUrl ?? "https://slack.com/api/",
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: options.timeoutMs ?? 10_000,
    logger: quietLogger(),
    logLevel: LogLevel.ERROR,
    fetch: heraldFetch,
  });
}
