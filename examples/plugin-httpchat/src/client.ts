/**
 * The HTTP chat API (README "The API"): its message schema, its errors and the client — the
 * wire's `error.code` / `retry_after_ms` / `Retry-After` become herald units here only.
 *
 * @module
 */
import {
  type ClassifiedFailure,
  classifyPlatformError,
  createHttpClient,
  type HttpClient,
  type MessageOrigin,
  platformErrors,
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
 * `HttpChatApiError[rate_limited]` (the API said no) and `HttpChatNetworkError[refused]` (no
 * answer: refused is provably not sent; reset or timed out may be).
 */
export const { ApiError: HttpChatApiError, NetworkError: HttpChatNetworkError } = platformErrors(
  "HttpChat",
  { code: "HERALD_HTTPCHAT", platform: "the HTTP chat API" },
);

/** The client: bearer `token` (redacted from error descriptions), `timeoutMs` per call. */
export const httpChatClient = (baseUrl: string, token: string, timeoutMs: number): HttpClient =>
  createHttpClient({
    baseUrl,
    timeoutMs,
    headers: { authorization: `Bearer ${token}` },
    errors: { ApiError: HttpChatApiError, NetworkError: HttpChatNetworkError },
    readError: (body) => {
      const { code, description, retry_after_ms } = (body as WireError).error ?? {};
      return { platformCode: code, description, retryAfterMs: retry_after_ms };
    },
    secrets: [token],
  });

/** Kind × dispatch evidence of what a call threw: by status, by network evidence, else `maybe_sent`. */
export const classifyError = (error: unknown): ClassifiedFailure =>
  classifyPlatformError(error, { rateLimitScope: "chat" });
