/**
 * Request helpers shared by the QA platform's bot API (`botApi.ts`) and native stream API
 * (`streamApi.ts`): the error answer, the bearer-token check and the JSON body parse.
 *
 * @module
 */
import type { z } from "@herald/plugin-sdk/channel-message";
import type { Context, FakePlatformEnv } from "@herald/plugin-sdk/testing";
import type { QaBot, QaPlatformCore } from "./platformTypes.ts";

/** The request context of a QA platform route. */
export type QaContext = Context<FakePlatformEnv>;

/** The helpers {@link apiKit} returns. */
export interface QaApiKit {
  /** The error answer `{ ok: false, error: { code, description } }` with HTTP `status`. */
  fail(status: number, code: string, description: string): Response;
  /**
   * Wraps a route handler: answers 401 `unauthorized` unless `Authorization: Bearer <token>`
   * names a known bot, else calls `handler` with that bot.
   */
  authed(
    handler: (c: QaContext, bot: QaBot) => Promise<Response> | Response,
  ): (c: QaContext) => Promise<Response>;
  /**
   * The request body parsed by `schema`, or the 400 `bad_request` answer: `body is not JSON`,
   * or `<field path>: <message>` for the first schema issue.
   */
  body<T>(c: QaContext, schema: z.ZodType<T>): Promise<T | Response>;
}

/** The request helpers bound to `platform`'s server and bots. */
export function apiKit(platform: QaPlatformCore): QaApiKit {
  const fail = (status: number, code: string, description: string): Response =>
    platform.server.error({ status, code, description });
  return {
    fail,
    authed: (handler) => async (c) => {
      const token = c.req.header("authorization")?.replace(/^Bearer\s+/i, "") ?? "";
      const bot = platform.botByToken(token);
      if (!bot) return fail(401, "unauthorized", "missing or unknown bot token");
      return handler(c, bot);
    },
    async body<T>(c: QaContext, schema: z.ZodType<T>): Promise<T | Response> {
      let json: unknown;
      try {
        json = await c.req.json();
      } catch {
        return fail(400, "bad_request", "body is not JSON");
      }
      const parsed = schema.safeParse(json);
      if (parsed.success) return parsed.data;
      const issue = parsed.error.issues[0];
      const path = issue?.path.map(String).join(".") || "body";
      return fail(400, "bad_request", `${path}: ${issue?.message}`);
    },
  };
}
