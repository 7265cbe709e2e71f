/**
 * The web console (DESIGN §10–11), mounted by the gateway's HTTP server at `/console` when the
 * config has a `console` section: the queue inspector (intents, held unknown sends, dead
 * letters), the conversation view with completed-turn branch and fork (seed
 * `completed-turn-boundaries.md`), and the accounts' health.
 *
 * Server-rendered HTML (hono's `html` helper) with htmx; live updates over SSE. Signed-in only
 * (see `auth.ts`): without the token every page answers 401 with the sign-in form; every POST
 * passes the same-origin check and the CSRF token. Every stored value is redacted with the
 * gateway's redaction before it is rendered, as in `herald queue show`.
 *
 * @module
 */
import { type Context, Hono } from "hono";
import { setCookie } from "hono/cookie";
import { html } from "hono/html";
import { HTTPException } from "hono/http-exception";
import { registerAccountRoutes } from "./accountsRoutes.ts";
import { registerAssets } from "./assets.ts";
import {
  csrfToken,
  csrfTokenValid,
  isSignedIn,
  SESSION_COOKIE,
  sameOriginOnly,
  sessionValue,
  tokenMatches,
} from "./auth.ts";
import { registerConversationRoutes, remember } from "./conversationRoutes.ts";
import { registerDeadLetterRoutes } from "./deadLetterRoutes.ts";
import type { ConsoleDeps } from "./deps.ts";
import { ConsoleEvents } from "./events.ts";
import { notice, type PageContext, page } from "./layout.ts";
import { ConsoleQueryError } from "./query.ts";
import { registerQueueRoutes } from "./queueRoutes.ts";

/** The page's Content-Security-Policy: nothing but this origin, no inline script or style. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** A mounted console: its hono app and a `close()` for the gateway's stop. */
export type ConsoleApp = { app: Hono; close(): void };

function loginForm(base: string, next: string, failed: boolean) {
  return html`<h1>Sign in</h1>
${failed ? notice("error", "Wrong token.") : notice("info", "This console needs the operator token.", "It is the value of the environment variable named by console.tokenEnv in the gateway's config.")}
<form method="post" action="${base}/login" class="card login">
<input type="hidden" name="next" value="${next}">
<label>token <input type="password" name="token" autocomplete="current-password" autofocus required size="40"></label>
<button type="submit" class="primary">Sign in</button></form>`;
}

/** Builds the console app (routes relative to its mount path `deps.base`). */
export function createConsoleApp(deps: ConsoleDeps): ConsoleApp {
  const app = new Hono();
  const events = new ConsoleEvents(deps);
  const known = new Set<string>();
  const stopWatching = deps.runtime.onTurn((e) => remember(known, e.conversation));
  const base = deps.base;
  const ctxOf = (): PageContext => ({ base, csrf: csrfToken(deps.token) });

  app.use("*", async (c, next) => {
    await next();
    c.header("content-security-policy", CSP);
    c.header("x-content-type-options", "nosniff");
    c.header("referrer-policy", "no-referrer");
    c.header("cache-control", c.res.headers.get("cache-control") ?? "no-store");
  });
  registerAssets(app);
  // A bad query parameter is the caller's mistake: a 400 page naming it (never a 500).
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    const ctx = isSignedIn(c, deps.token, deps.clock(), deps.sessionTtlMs) ? ctxOf() : { base };
    if (error instanceof ConsoleQueryError)
      return c.html(
        page(
          ctx,
          "Bad request",
          notice(
            "error",
            `Bad ${error.field}: ${error.message}`,
            "Fix that parameter in the address (or use the page's filters) and load it again.",
          ),
        ),
        400,
      );
    deps.logger.error({ err: error, path: c.req.path }, "console request failed");
    return c.html(
      page(
        ctx,
        "Error",
        notice(
          "error",
          "The console could not answer this request.",
          `The gateway's log has the details ("console request failed", ${error.name}). Reload to try again.`,
        ),
      ),
      500,
    );
  });
  // Every POST, sign-in included: same origin only (hono's csrf: Origin / Sec-Fetch-Site).
  const refused = (c: Context, why: string) =>
    c.html(
      page(
        { base },
        "Refused",
        notice(
          "error",
          `Refused: ${why}`,
          "Nothing was changed. Reload the console page and try again.",
        ),
      ),
      403,
    );
  app.post(
    "*",
    sameOriginOnly((c) => {
      deps.logger.warn({ path: c.req.path }, "console POST refused: not from the console's origin");
      return refused(
        c,
        "this request did not come from the console's own page (cross-site).",
      ) as unknown as Response;
    }),
  );

  app.get("/login", (c) => {
    const next = c.req.query("next") ?? `${base}/`;
    return c.html(page({ base }, "Sign in", loginForm(base, next, false)));
  });
  app.post("/login", async (c) => {
    const form = await c.req.parseBody();
    const given = typeof form.token === "string" ? form.token : "";
    const nextRaw = typeof form.next === "string" ? form.next : "";
    // Only a path inside the console: never an open redirect.
    // No control characters, spaces or backslashes either (a line break made the Location header
    // throw: a 500).
    const next =
      nextRaw.startsWith(`${base}/`) &&
      ![...nextRaw].some((ch) => ch <= " " || ch === "\u007f" || ch === "\\")
        ? nextRaw
        : `${base}/`;
    if (!tokenMatches(given, deps.token)) {
      deps.logger.warn({ path: c.req.path }, "console sign-in refused: wrong token");
      return c.html(page({ base }, "Sign in", loginForm(base, next, true)), 401);
    }
    setCookie(c, SESSION_COOKIE, sessionValue(deps.token, deps.clock()), {
      path: base,
      httpOnly: true,
      sameSite: "Strict",
      // Behind a TLS-terminating proxy the request reaches us as http: its X-Forwarded-Proto says
      // https. (Trusting it can only make the cookie stricter.)
      secure:
        new URL(c.req.url).protocol === "https:" ||
        c.req.header("x-forwarded-proto")?.split(",")[0]?.trim() === "https",
      maxAge: Math.floor(deps.sessionTtlMs / 1000),
    });
    return c.redirect(next, 303);
  });

  // Everything below needs a signed-in request; POSTs also the CSRF token.
  app.use("*", async (c, next) => {
    if (!isSignedIn(c, deps.token, deps.clock(), deps.sessionTtlMs)) {
      const nextPath =
        c.req.method === "GET"
          ? new URL(c.req.url).pathname + new URL(c.req.url).search
          : `${base}/`;
      return c.html(page({ base }, "Sign in", loginForm(base, nextPath, false)), 401);
    }
    if (
      c.req.method !== "GET" &&
      c.req.method !== "HEAD" &&
      !(await csrfTokenValid(c, deps.token))
    ) {
      deps.logger.warn({ path: c.req.path }, "console POST refused: missing or wrong CSRF token");
      return c.html(
        page(
          { base },
          "Refused",
          notice(
            "error",
            "Refused: this request has no valid CSRF token.",
            "Reload the page and try again.",
          ),
        ),
        403,
      );
    }
    return next();
  });

  app.get("/", (c) => c.redirect(`${base}/queue`, 302));
  app.get("/events", (c) => events.stream(c));
  registerQueueRoutes(app, deps, ctxOf);
  registerDeadLetterRoutes(app, deps, ctxOf);
  registerConversationRoutes(app, deps, ctxOf, known);
  registerAccountRoutes(app, deps, ctxOf);
  app.post("/logout", (c) => {
    setCookie(c, SESSION_COOKIE, "", { path: base, httpOnly: true, sameSite: "Strict", maxAge: 0 });
    return c.redirect(`${base}/login`, 303);
  });
  // Anything else under the console: a page that says where to go (a bare "404 Not Found" before).
  app.all("*", (c) =>
    c.html(
      page(
        ctxOf(),
        "Not found",
        notice(
          "error",
          `No console page at ${c.req.path}.`,
          "Use the navigation above: Queue, Held sends, Dead letters, Conversations, Accounts.",
        ),
      ),
      404,
    ),
  );
  return {
    app,
    close: () => {
      stopWatching();
      events.close();
    },
  };
}
