/**
 * The REST client: discord.js's own `@discordjs/rest` with its retries off (`retries: 0`, and
 * `rejectOnRateLimit` so a 429 — or a bucket discord.js knows is spent — throws instead of
 * sleeping), so herald's durable queue is the one place that retries. Discord's per-route
 * buckets still reach herald's scheduler: every response's `X-RateLimit-*` headers are handed
 * to `onRateLimit` (header feedback), and a 429 of any shape Discord or its edge sends becomes a
 * {@link DiscordApiError} with its wait and scope ({@link answer429}): discord.js reads only the
 * headers, so the body's `global: true` and float `retry_after` are read here.
 *
 * discord.js clears its token after a 401 (`manager.setToken(null)`); {@link DiscordRest} sets
 * it again before every call, so one rejected call does not turn every later one into a
 * "token not set" error.
 *
 * Source: https://discord.com/developers/docs/topics/rate-limits#header-format
 *
 * @module
 */
import { type RawFile, REST, RESTEvents, type RequestData } from "@discordjs/rest";
import { networkFailureOf, type RateLimitFeedback } from "@herald/plugin-sdk/channel-message";
import { answer429, asDiscordApiError, DiscordNetworkError } from "./errors.ts";

/** Options of {@link createDiscordRest}. */
export type DiscordRestOptions = {
  token: string;
  /** REST base without the version, e.g. `https://discord.com/api`. */
  apiBase: string;
  /** One call's timeout, in ms. */
  timeoutMs: number;
};

/** discord.js's REST manager, configured for herald (no retries, 429s rejected, no offset). */
export function createDiscordRest(options: DiscordRestOptions): REST {
  return new REST({
    api: options.apiBase,
    version: "10",
    retries: 0,
    rejectOnRateLimit: () => true,
    offset: 0,
    timeout: options.timeoutMs,
  }).setToken(options.token);
}

/** One REST call. */
export type DiscordCall = {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** Route with ids, e.g. `/channels/123/messages`. */
  route: `/${string}`;
  body?: unknown;
  files?: RawFile[];
  query?: URLSearchParams;
  signal?: AbortSignal;
  /** Called with the bucket state of the response (success or error), before returning or throwing. */
  onRateLimit?: (feedback: RateLimitFeedback) => void;
};

type Pending = { headers?: Headers; status?: number; body429?: Promise<unknown> };

/** Header feedback of one response: remaining calls, reset in ms, the bucket (with the channel). */
export function feedbackOf(headers: Headers, majorId: string | undefined): RateLimitFeedback {
  const remaining = headers.get("x-ratelimit-remaining");
  const resetAfter = headers.get("x-ratelimit-reset-after");
  const bucket = headers.get("x-ratelimit-bucket");
  const limit = headers.get("x-ratelimit-limit");
  return {
    ...(remaining !== null ? { remaining: Number(remaining) } : {}),
    // Discord's header is seconds (a float): converted once.
    ...(resetAfter !== null ? { resetAfterMs: Math.ceil(Number(resetAfter) * 1_000) } : {}),
    ...(bucket !== null ? { bucket: majorId ? `${bucket}:${majorId}` : bucket } : {}),
    ...(limit !== null ? { limit: Number(limit) } : {}),
  };
}

/** The major parameter of a route (Discord buckets per channel / guild / webhook). */
function majorOf(route: string): string | undefined {
  return /^\/(?:channels|guilds|webhooks)\/(\d+)/.exec(route)?.[1];
}

/**
 * herald's face of discord.js's REST: one call at a time, errors converted at the edge into
 * {@link DiscordApiError} (Discord said no) and {@link DiscordNetworkError} (no answer).
 */
export class DiscordRest {
  readonly rest: REST;
  readonly #token: string;
  readonly #pending = new Map<AbortSignal, Pending>();

  constructor(options: DiscordRestOptions) {
    this.#token = options.token;
    this.rest = createDiscordRest(options);
    this.rest.on(RESTEvents.Response, (request, response) => {
      const signal = (request.data as { signal?: AbortSignal }).signal;
      const pending = signal ? this.#pending.get(signal) : undefined;
      if (!pending) return;
      pending.headers = response.headers as unknown as Headers;
      pending.status = response.status;
      // discord.js never reads a 429's body when it rejects it: reading it here is safe.
      if (response.status === 429) pending.body429 = response.json().catch(() => undefined);
    });
  }

  /**
   * Makes one call.
   * @returns the parsed JSON answer (`undefined` for 204).
   * @throws DiscordApiError when Discord answered with an error (429 included).
   * @throws DiscordNetworkError when it never answered (refused, reset, timeout, abort).
   */
  async call<T>(call: DiscordCall): Promise<T> {
    const controller = new AbortController();
    const parent = call.signal;
    const abort = () => controller.abort(parent?.reason);
    if (parent?.aborted) abort();
    else parent?.addEventListener("abort", abort, { once: true });
    const pending: Pending = {};
    this.#pending.set(controller.signal, pending);
    const name = `${call.method} ${call.route}`;
    try {
      this.rest.setToken(this.#token);
      const data: RequestData = {
        ...(call.body !== undefined ? { body: call.body } : {}),
        ...(call.files ? { files: call.files } : {}),
        ...(call.query ? { query: call.query } : {}),
        signal: controller.signal,
      };
      const result = (await this.#send(call.method, call.route, data)) as T;
      this.#feedback(call, pending);
      return result;
    } catch (error) {
      this.#feedback(call, pending);
      throw await this.#convert(name, error, pending);
    } finally {
      parent?.removeEventListener("abort", abort);
      this.#pending.delete(controller.signal);
    }
  }

  #send(method: DiscordCall["method"], route: `/${string}`, data: RequestData): Promise<unknown> {
    switch (method) {
      case "GET":
        return this.rest.get(route, data);
      case "POST":
        return this.rest.post(route, data);
      case "PATCH":
        return this.rest.patch(route, data);
      case "PUT":
        return this.rest.put(route, data);
      case "DELETE":
        return this.rest.delete(route, data);
    }
  }

  #feedback(call: DiscordCall, pending: Pending): void {
    if (!call.onRateLimit || !pending.headers) return;
    const feedback = feedbackOf(pending.headers, majorOf(call.route));
    if (Object.keys(feedback).length > 0) call.onRateLimit(feedback);
  }

  async #convert(name: string, error: unknown, pending: Pending): Promise<Error> {
    if (pending.status === 429 && pending.body429) {
      return answer429(name, await pending.body429, pending.headers, error);
    }
    const api = asDiscordApiError(error, name);
    if (api) return api;
    // Only what the network threw is a network error; anything else (a bug, a discord.js
    // precondition) stays itself and classifies as `unknown`, `maybe_sent`.
    if (networkFailureOf(error).reason === "other" && error instanceof Error) return error;
    return new DiscordNetworkError(name, error);
  }
}
