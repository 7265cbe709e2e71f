/**
 * The request body limit of the webhook routes (CASES: hostile input; [H20] item 5). A body
 * above the route's limit is answered `413` before the rest is read: a `Content-Length` above
 * the limit is refused unread, a chunked body is counted while it streams and refused at the
 * first byte past the limit. The receiver never sees the request, so nothing is recorded.
 * The 413 closes the connection, so the sender's remaining bytes are not read either.
 *
 * Built on hono's `bodyLimit` middleware.
 *
 * @module
 */
import type { HeraldLogger } from "@herald/core";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";

/**
 * The limit of a webhook route whose plugin declares none and whose config sets none, in
 * bytes (1 MiB). No supported platform documents a larger inbound webhook body: a Telegram
 * update carries at most 4096 characters of text, 1024 of caption and file ids (files are
 * never inlined), a few kilobytes.
 */
export const DEFAULT_WEBHOOK_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Middleware answering 413 (`{ error, limitBytes }`, `connection: close`) to a body larger
 * than `limitOf(c)` bytes, and logging the refusal (channel, account, limit; never the body).
 */
export function webhookBodyLimit(
  limitOf: (c: Context) => number,
  logger: HeraldLogger,
): MiddlewareHandler {
  return async (c, next) => {
    const limitBytes = limitOf(c);
    return bodyLimit({
      maxSize: limitBytes,
      onError: (ctx) => {
        logger.warn(
          {
            channel: ctx.req.param("channel"),
            account: ctx.req.param("account"),
            limitBytes,
            contentLength: ctx.req.header("content-length") ?? null,
          },
          "webhook body over the limit: answered 413, nothing recorded",
        );
        return ctx.json({ error: "request body too large", limitBytes }, 413, {
          connection: "close",
        });
      },
    })(c, next);
  };
}
