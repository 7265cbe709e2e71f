/**
 * The Bot API client: grammY's `Api`, pointed at the configured API root, with two edges of
 * herald's own and nothing else:
 *
 * - a `fetch` over Node's built-in fetch that reads what grammY cannot see — a `Retry-After`
 *   header on a 429 whose body has no `retry_after`, and non-JSON answers from proxies (an HTML
 *   502) — and folds them into the Bot API's own error shape;
 * - an API transformer that turns every failure into {@link TelegramApiError} or
 *   {@link TelegramNetworkError}, with the token redacted.
 *
 * No retry transformer is installed (grammY has none by default; `@grammyjs/auto-retry` must not
 * be added): herald's durable queue is the one place that retries, after classifying.
 *
 * @module
 */

import { parseRetryAfter } from "@herald/plugin-sdk/channel-message";
import { Api, type Transformer } from "grammy";
import {
  redactToken,
  TelegramApiError,
  type TelegramErrorParameters,
  TelegramNetworkError,
} from "./errors.ts";

/** The abort signal type grammY's methods declare (from its `abort-controller` polyfill). */
export type GrammySignal = Parameters<Api["getMe"]>[0];

/**
 * A native `AbortSignal` as grammY's methods take it: they only call `addEventListener`, so the
 * native signal works; only the declared type differs.
 */
export function grammySignal(signal: AbortSignal): GrammySignal {
  return signal as unknown as GrammySignal;
}

type GrammyFetch = NonNullable<NonNullable<ConstructorParameters<typeof Api>[1]>["fetch"]>;

/** Options of {@link createTelegramApi}. */
export type TelegramApiOptions = {
  /** The bot token, `<bot id>:<secret>`. */
  token: string;
  /** Bot API root without a trailing slash. @defaultValue "https://api.telegram.org" */
  apiRoot?: string;
  /**
   * Per-request timeout in ms (grammY's `timeoutSeconds`); a long poll needs more than its
   * `timeout`. @defaultValue 30_000
   */
  timeoutMs?: number;
};

/**
 * The bot's user id: the part of the token before the colon (Bot API "Authorizing your bot").
 * @throws TypeError when the token does not look like `<digits>:<secret>` (never echoes it).
 */
export function botIdOfToken(token: string): string {
  const match = /^(\d+):[A-Za-z0-9_-]+$/.exec(token.trim());
  if (!match?.[1]) {
    throw new TypeError(
      'the Telegram bot token must look like "<bot id>:<secret>" (from @BotFather)',
    );
  }
  return match[1];
}

/**
 * Creates the grammY API client herald uses for one bot.
 *
 * @throws TypeError when the token is malformed.
 * @example
 * const api = createTelegramApi({ token, apiRoot: "http://127.0.0.1:8081" });
 * await api.getMe(); // https://core.telegram.org/bots/api#getme
 */
export function createTelegramApi(options: TelegramApiOptions): Api {
  const { token } = options;
  botIdOfToken(token);
  const apiRoot = (options.apiRoot ?? "https://api.telegram.org").replace(/\/+$/, "");
  const api = new Api(token, {
    apiRoot,
    timeoutSeconds: (options.timeoutMs ?? 30_000) / 1_000,
    fetch: heraldFetch as unknown as GrammyFetch,
  });
  api.config.use(typedErrors(token));
  return api;
}

/**
 * Node's fetch, called the way grammY calls node-fetch. grammY's abort signal comes from a
 * polyfill, so it is bridged to a native one; the body of an error answer is normalized.
 */
async function heraldFetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
  const controller = new AbortController();
  const signal = init.signal as AbortSignal | null | undefined;
  if (signal) {
    if (signal.aborted) controller.abort();
    else signal.addEventListener("abort", () => controller.abort(), { once: true });
  }
  const response = await fetch(url, { ...init, signal: controller.signal });
  if (response.ok) return response;
  return normalizeErrorAnswer(response);
}

/**
 * An error answer in the Bot API's shape: a JSON body gets `parameters.retry_after` from the
 * `Retry-After` header when it lacks one; a non-JSON body (a proxy's HTML page) becomes
 * `{ ok: false, error_code: <status>, description: <status text> }`.
 */
async function normalizeErrorAnswer(response: Response): Promise<Response> {
  const text = await response.text();
  let body: { ok?: boolean; error_code?: number; parameters?: TelegramErrorParameters } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = undefined;
  }
  if (!body || typeof body !== "object" || body.ok !== false) {
    body = {
      ok: false,
      error_code: response.status,
      description: `${response.status} ${response.statusText || "error"} (not a Bot API answer)`,
    } as typeof body;
  }
  const headerMs = parseRetryAfter(response.headers.get("retry-after"));
  if (
    response.status === 429 &&
    body &&
    body.parameters?.retry_after === undefined &&
    headerMs !== undefined
  ) {
    body.parameters = { ...body.parameters, retry_after: headerMs / 1_000 }; // the wire's seconds
  }
  return new Response(JSON.stringify(body), {
    status: response.status,
    statusText: response.statusText,
    headers: { "content-type": "application/json" },
  });
}

/** The transformer that converts every failure into herald's typed errors, token redacted. */
function typedErrors(token: string): Transformer {
  const redact = (text: string) => redactToken(text, token);
  return async (prev, method, payload, signal) => {
    let answer: Awaited<ReturnType<typeof prev>>;
    try {
      answer = await prev(method, payload, signal);
    } catch (error) {
      const cause = (error as { name?: string; error?: unknown }).error ?? error;
      throw new TelegramNetworkError(method, cause);
    }
    if (!answer.ok) {
      throw new TelegramApiError(
        method,
        {
          error_code: answer.error_code,
          description: answer.description,
          ...(answer.parameters
            ? { parameters: answer.parameters as TelegramErrorParameters }
            : {}),
        },
        redact,
      );
    }
    return answer;
  };
}
