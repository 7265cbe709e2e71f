/**
 * Console authentication and CSRF protection (DESIGN §10–11).
 *
 * - **Token**: the operator signs in once with the token held in the env var the config names
 *   (`console.tokenEnv`), compared in constant time (`constantTimeEqual` of the SDK); a request
 *   may also carry it as `Authorization: Bearer <token>`.
 * - **Session cookie** after login: `herald_console`, `HttpOnly`, `SameSite=Strict`,
 *   `Path=<console path>`, holding HMAC-SHA256(token, "session") — never the token itself; it
 *   stops working when the token changes. No session state is kept in memory, so every gateway
 *   process sharing a store accepts it.
 * - **CSRF**: every POST must pass hono's `csrf()` (same `Origin` / `Sec-Fetch-Site`) **and**
 *   carry the CSRF token (HMAC-SHA256(token, "csrf:" + session)) in the `_csrf` form field or the
 *   `x-csrf-token` header; anything else is refused with 403 before it does anything.
 *
 * @module
 */
import { constantTimeEqual, hmacSha256Hex } from "@herald/plugin-sdk/channel-message";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";

/** Name of the session cookie. */
export const SESSION_COOKIE = "herald_console";

/** The session value a signed-in browser holds. */
export function sessionValue(token: string): string {
  return hmacSha256Hex(token, ["herald-console:session:v1"]);
}

/** The CSRF token of a session (rendered into forms, sent back by htmx as a header). */
export function csrfToken(token: string): string {
  return hmacSha256Hex(token, ["herald-console:csrf:v1:", sessionValue(token)]);
}

/** True when the request carries the token (bearer header) or a valid session cookie. */
export function isSignedIn(c: Context, token: string): boolean {
  const bearer = /^Bearer (.+)$/.exec(c.req.header("authorization") ?? "")?.[1];
  if (bearer !== undefined) return constantTimeEqual(bearer, token);
  const session = getCookie(c, SESSION_COOKIE);
  return session !== undefined && constantTimeEqual(session, sessionValue(token));
}

/** True when `given` (a login form's field) is the console token. */
export function tokenMatches(given: string, token: string): boolean {
  return constantTimeEqual(given, token);
}

/**
 * Refuses state-changing requests from other origins: hono's `csrf()` (the `Origin` header, or
 * `Sec-Fetch-Site: same-origin`). Applied to every POST of the console, login included; a
 * refusal is answered by `refused` (403).
 */
export function sameOriginOnly(refused: (c: Context) => Response): MiddlewareHandler {
  const check = csrf();
  return async (c, next) => {
    try {
      await check(c, next);
    } catch (error) {
      if (error instanceof HTTPException && error.status === 403) return refused(c);
      throw error;
    }
  };
}

/**
 * Checks the CSRF token of a signed-in POST (`_csrf` form field or `x-csrf-token` header).
 * @returns true when it matches.
 */
export async function csrfTokenValid(c: Context, token: string): Promise<boolean> {
  const header = c.req.header("x-csrf-token");
  let given = header;
  if (given === undefined) {
    const type = c.req.header("content-type") ?? "";
    if (type.includes("form")) {
      const form = await c.req.parseBody();
      given = typeof form._csrf === "string" ? form._csrf : undefined;
    }
  }
  return given !== undefined && constantTimeEqual(given, csrfToken(token));
}

/** The query parameter holding a notice's signature. */
const NOTICE_SIG = "sig";

const noticeSig = (token: string, fields: Record<string, string>) =>
  hmacSha256Hex(token, [
    "herald-console:notice:v1:",
    JSON.stringify(Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : 1))),
  ]);

/**
 * Query parameters carrying a notice to the page a POST redirects to (`done=Retried: …`,
 * `forkError=open_turn&at=…&turn=…`), signed with the console token so that only the console
 * itself can put text on its pages: a crafted link (`?done=Your token expired, sign in at …`)
 * shows nothing.
 */
export function signedNotice(
  token: string,
  fields: Record<string, string>,
): Record<string, string> {
  return { ...fields, [NOTICE_SIG]: noticeSig(token, fields) };
}

/**
 * The notice fields of `names` in the request's query when their signature is valid
 * ({@link signedNotice}); undefined when absent or forged.
 */
export function verifiedNotice(
  c: Context,
  token: string,
  names: readonly string[],
): Record<string, string> | undefined {
  const fields: Record<string, string> = {};
  for (const name of names) {
    const value = c.req.query(name);
    if (value !== undefined) fields[name] = value;
  }
  const sig = c.req.query(NOTICE_SIG);
  if (Object.keys(fields).length === 0 || sig === undefined) return undefined;
  return constantTimeEqual(sig, noticeSig(token, fields)) ? fields : undefined;
}
