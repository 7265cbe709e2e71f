/**
 * The HTTP chat API (README "The API"): its message schema, its errors and the client — the
 * wire's `error.code` / `retry_after_ms` / `Retry-After` become herald units here only.
 *
 * @module
 */
import * as herald from "@herald/plugin-sdk/channel-message";

const { z } = herald;

/** The channel id. */
export const HTTPCHAT = "httpchat";

/** A message as the API returns it (events carry one too). */
export const wireMessageSchema = z.object({
  id: z.string(),
  chat_id: z.string(),
  chat_type: z.enum(["direct", "group"]),
  thread_id: z.string().optional(),
  reply_to: z.string().optional(),
  text: z.string(),
  author: z.object({ id: z.string(), name: z.string().optional(), bot: z.boolean() }),
  metadata: z.object({ herald_origin: z.unknown() }).optional(),
  created_at: z.number(),
});
/** A message as the API returns it. */
export type WireMessage = herald.z.infer<typeof wireMessageSchema>;
type WireError = { error?: { code?: string; description?: string; retry_after_ms?: number } };

/**
 * The error classes: `HttpChatApiError[rate_limited]` (the API said no) and
 * `HttpChatNetworkError[refused]` (no answer: refused is provably not sent; reset or timed out
 * may be). `error instanceof httpChatErrors.ApiError` tells them apart.
 */
export const httpChatErrors = herald.platformErrors("HttpChat");

/** The client of an account: bearer `token` (redacted from errors), the config's timeout per call. */
export const httpChatClient = (c: { baseUrl: string; requestTimeoutMs: number }, token: string) =>
  herald.createHttpClient({
    baseUrl: c.baseUrl,
    timeoutMs: c.requestTimeoutMs,
    bearerToken: token,
    errors: httpChatErrors,
    readError: (body) => {
      const { code, description, retry_after_ms } = (body as WireError).error ?? {};
      return { platformCode: code, description, retryAfterMs: retry_after_ms };
    },
  });
