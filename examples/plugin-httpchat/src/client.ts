/**
 * The HTTP chat API (README "The API"): its message schema, the client, its errors and
 * `classifyError` — the wire's `retry_after_ms` / `Retry-After` become `retryAfterMs` here only.
 *
 * @module
 */
import {
  type ClassifiedFailure,
  classifyPlatformError,
  type MessageOrigin,
  networkFailureOf,
  PlatformApiError,
  PlatformNetworkError,
  parseRetryAfter,
  redactSecrets,
  z,
} from "@herald/plugin-sdk/channel-message";

/** A message as the API returns it (events carry one too). */
export const wireMessageSchema = z.object({
  id: z.string(),
  chat_id: z.string(),
  chat_type: z.enum(["direct", "group"]),
  thread_id: z.string().optional(),
  reply_to: z.string().optional(),
  text: z.string(),
  author: z.object({ id: z.string(), name: z.string().optional(), bot: z.boolean() }),
  key: z.string().optional(),
  metadata: z.object({ herald_origin: z.custom<MessageOrigin>().optional() }).optional(),
  created_at: z.number(),
});
/** A message as the API returns it. */
export type WireMessage = z.infer<typeof wireMessageSchema>;
type WireError = { error?: { code?: string; description?: string; retry_after_ms?: number } };

/**
 * The API answered an error; the name carries its code: `HttpChatApiError[rate_limited]`. A
 * description that quotes the bearer `token` back has it replaced by `[redacted]`.
 */
export class HttpChatApiError extends PlatformApiError {
  constructor(call: string, res: Response, body: WireError | undefined, token = "") {
    const description = body?.error?.description;
    super("HERALD_HTTPCHAT_API", "the HTTP chat API", call, {
      status: res.status,
      platformCode: body?.error?.code,
      description: description && token ? redactSecrets(description, [token]) : description,
      retryAfterMs: body?.error?.retry_after_ms ?? parseRetryAfter(res.headers.get("retry-after")),
    });
  }
}

/** No answer: refused (provably not sent), or reset / timed out (maybe sent). */
export class HttpChatNetworkError extends PlatformNetworkError {
  constructor(call: string, cause: unknown) {
    super("HERALD_HTTPCHAT_NETWORK", "the HTTP chat API", call, networkFailureOf(cause), { cause });
  }
}

/** One API call, e.g. `call("POST /v1/chats/c1/messages", { text }, signal)`: JSON in and out. */
export type HttpChatCall = <T = unknown>(
  call: string,
  body?: unknown,
  signal?: AbortSignal,
) => Promise<T>;

/** The client: bearer `token`, `timeoutMs` per call. */
export function httpChatClient(baseUrl: string, token: string, timeoutMs: number): HttpChatCall {
  return async <T>(call: string, body?: unknown, signal?: AbortSignal): Promise<T> => {
    const [method = "GET", path = "/"] = call.split(" ");
    const timeout = AbortSignal.timeout(timeoutMs);
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      });
      text = await res.text();
    } catch (error) {
      throw new HttpChatNetworkError(call, error);
    }
    const json = text ? JSON.parse(text) : undefined;
    if (!res.ok) throw new HttpChatApiError(call, res, json, token);
    return json as T;
  };
}

/** Kind × dispatch evidence of what a call threw: by status, by network evidence, else `maybe_sent`. */
export const classifyError = (error: unknown): ClassifiedFailure =>
  classifyPlatformError(error, { rateLimitScope: "chat" });
