/**
 * Console authentication and CSRF protection (DESIGN §10–11).
 *
 * - **Token**: the operator signs in once with the token held in the env var the config names
 *   (`console.tokenEnv`), compared in constant time (`constantTimeEqual` of the SDK); a request
 *   may also carry it as `Authorization: Bearer <token>`.
 * - **Session cookie** after login: `herald_console`, `HttpOnly`, `SameSite=Strict`,
 *   `Secure` when the console is served over HTTPS, `Path=<console path>`,
 *   `Max-Age=<console.sessionTtlMs / 1000>`. It holds the sign-in time and
 *   HMAC-SHA256(token, "session" + that time), never the token itself. It stops working when the
 *   token changes, and once it is older than `sessionTtlMs` (12 hours by default), even if a
 *   browser kept it. No session state is kept in memory, so every gateway process sharing a
 *   store accepts it.
 * - **CSRF**: every POST must pass hono's `csrf()` (same `Origin` / `Sec-Fetch-Site`) **and**
 *   carry the CSRF token (HMAC-SHA256(token, "csrf")) in the `_csrf` form field or the
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

/**
 * The session value a browser signed in at `issuedAtMs` (epoch ms) holds:
 * `<issuedAtMs in base 36>.<HMAC-SHA256 hex>`.
 */
export function sessionValue(token: string, issuedAtMs: number): string {
  const at = Math.floor(issuedAtMs).toString(36);
  return `${at}.${hmacSha256Hex(token, ["herald-console:session:v2:", at])}`;
}

/** The CSRF token rendered into forms and sent back by htmx as a header. */
export function csrfToken(token: string): string {
  return hmacSha256Hex(token, ["herald-console:csrf:v2"]);
}

/** How far in the future a session's sign-in time may be (clock skew between processes), ms. */
const FUTURE_SKEW_MS = 60_000;

/**
 * True when `session` is a session value of `token` signed in at most `ttlMs` before `nowMs`
 * (both epoch ms). A malformed value is false, never an error.
 */
export function sessionValid(
  session: string,
  token: string,
  nowMs: number,
  ttlMs: number,
): boolean {
  const dot = session.indexOf(".");
  if (dot <= 0) return false;
  const at = session.slice(0, dot);
  if (!/^[0-9a-z]{1,11}$/.test(at)) return false;
  const issuedAtMs = Number.parseInt(at, 36);
  if (!constantTimeEqual(session, sessionValue(token, issuedAtMs))) return false;
  return issuedAtMs <= nowMs + FUTURE_SKEW_MS && nowMs - issuedAtMs <= ttlMs;
}

/**
 * True when the request carries the token (bearer header) or a session cookie that is valid at
 * `nowMs` (epoch ms) for `ttlMs`.
 */
export function isSignedIn(c: Context, token: string, nowMs: number, ttlMs: number): boolean {
  const bearer = /^Bearer (.+)$/.exec(c.req.header("authorization") ?? "")?.[1];
  if (bearer !== undefined) return constantTimeEqual(bearer, token);
  const session = getCookie(c, SESSION_COOKIE);
  return session !== undefined && sessionValid(session, token, nowMs, ttlMs);
}

/**
 * True when `given` (a login form's field) is the console token. Spaces or a newline pasted
 * around it are not part of it (the token itself never holds whitespace: `consoleTokenProblem`).
 */
export function tokenMatches(given: string, token: string): boolean {
  return constantTimeEqual(given.trim(), token);
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
