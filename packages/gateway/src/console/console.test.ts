/**
 * [H18] The console's access rules over real HTTP requests to the hono app (no browser): off
 * unless configured, 401 without the token, the cookie after sign-in, CSRF on every POST,
 * loopback only unless allowed, and no secret on any page (the redaction of `queue show`).
 */
import { createMessageRuntime, SqliteStateStore, silentLogger } from "@herald/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../config/errors.ts";
import { parseConfig } from "../config/load.ts";
import { createGateway } from "../gateway.ts";
import { GatewayMetrics } from "../http/metrics.ts";
import { createHttpApp } from "../http/server.ts";
import { AttemptLog } from "./attempts.ts";
import { csrfToken, SESSION_COOKIE, sessionValue } from "./auth.ts";
import { type ConsoleApp, createConsoleApp } from "./console.ts";
import { type ConsoleDeps, DEFAULT_CONSOLE_SESSION_TTL_MS } from "./deps.ts";

const TOKEN = "a-console-token-of-some-length";
const PLATFORM_SECRET = "xoxb-platform-secret-value";
const ORIGIN = "http://127.0.0.1:8787";

let store: SqliteStateStore;
let consoleApp: ConsoleApp;

function app() {
  return createHttpApp({
    store,
    metrics: new GatewayMetrics(store, silentLogger),
    receivers: new Map(),
    logger: silentLogger,
    console: consoleApp,
  });
}

let deps: ConsoleDeps;
const signedIn = { cookie: `${SESSION_COOKIE}=${sessionValue(TOKEN, Date.now())}` };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

beforeEach(() => {
  store = new SqliteStateStore({ path: ":memory:" });
  const runtime = createMessageRuntime({ store, adapters: [], logger: silentLogger });
  deps = {
    token: TOKEN,
    base: "/console",
    store,
    runtime,
    accounts: () => [],
    redact: (text) =>
      text.replaceAll(PLATFORM_SECRET, "[redacted]").replaceAll(TOKEN, "[redacted]"),
    logger: silentLogger,
    attempts: new AttemptLog(),
    clock: () => Date.now(),
    sessionTtlMs: DEFAULT_CONSOLE_SESSION_TTL_MS,
  };
  consoleApp = createConsoleApp(deps);
});
afterEach(async () => {
  consoleApp.close();
  await store.close();
});

async function failedIntent() {
  const [result] = await store.enqueueIntents([
    {
      idempotencyKey: "k1",
      channel: "qa",
      accountId: "main",
      message: {
        id: "m1",
        channel: "qa",
        accountId: "main",
        direction: "outbound",
        target: { kind: "direct", id: "c1" },
        body: { markdown: "hello" },
      },
      operation: { kind: "send" },
    },
  ] as never);
  const intent = (result as { intent: { id: string } }).intent;
  await store.transitionIntents([
    { id: intent.id, from: "pending", to: "sending", patch: {} },
  ] as never);
  await store.transitionIntents([
    {
      id: intent.id,
      from: "sending",
      to: "failed",
      patch: {
        failure: {
          kind: "auth",
          evidence: "not_dispatched",
          message: `401 for https://api.example/bot${PLATFORM_SECRET}/send`,
        },
      },
    },
  ] as never);
  return intent.id;
}

describe("web console access", () => {
  it("is a 404 when the gateway has no console", async () => {
    const bare = createHttpApp({
      store,
      metrics: new GatewayMetrics(store, silentLogger),
      receivers: new Map(),
      logger: silentLogger,
    });
    expect((await bare.request("/console/queue")).status).toBe(404);
  });

  it("answers 401 with the sign-in page without the token; a bearer token or the cookie passes", async () => {
    const none = await app().request("/console/queue");
    expect(none.status).toBe(401);
    expect(await none.text()).toContain("needs the operator token");
    expect(
      (await app().request("/console/queue", { headers: { cookie: `${SESSION_COOKIE}=forged` } }))
        .status,
    ).toBe(401);
    expect(
      (await app().request("/console/queue", { headers: { authorization: "Bearer nope" } })).status,
    ).toBe(401);
    expect(
      (await app().request("/console/queue", { headers: { authorization: `Bearer ${TOKEN}` } }))
        .status,
    ).toBe(200);
    expect((await app().request("/console/queue", { headers: signedIn })).status).toBe(200);
  });

  it("signs in with the token: an HttpOnly, SameSite=Strict cookie that is not the token", async () => {
    const wrong = await app().request(`${ORIGIN}/console/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN },
      body: form({ token: "wrong" }),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    const ok = await app().request(`${ORIGIN}/console/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN },
      body: form({ token: TOKEN, next: "//evil.example/" }),
    });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toBe("/console/");
    const cookie = ok.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(
      /^herald_console=[0-9a-z]+\.[0-9a-f]{64}; Max-Age=43200; Path=\/console; HttpOnly; SameSite=Strict$/,
    );
    expect(cookie).not.toContain(TOKEN);
    // A token pasted with a space or newline around it signs in too (it never holds whitespace).
    const pasted = await app().request(`${ORIGIN}/console/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN },
      body: form({ token: ` ${TOKEN}\n` }),
    });
    expect(pasted.status).toBe(303);
    // Behind a TLS-terminating proxy (X-Forwarded-Proto: https) the cookie is Secure.
    const proxied = await app().request(`${ORIGIN}/console/login`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: ORIGIN,
        "x-forwarded-proto": "https",
      },
      body: form({ token: TOKEN }),
    });
    expect(proxied.headers.get("set-cookie")).toMatch(/; Secure/);
  });

  it("refuses a session cookie older than sessionTtlMs, from the future, or forged", async () => {
    let now = Date.UTC(2026, 11, 1, 12);
    const ttl = 60 * 60 * 1000;
    consoleApp.close();
    consoleApp = createConsoleApp({ ...deps, clock: () => now, sessionTtlMs: ttl });
    {
      const get = (value: string) =>
        app().request("/console/queue", { headers: { cookie: `${SESSION_COOKIE}=${value}` } });
      const issued = sessionValue(TOKEN, now);
      expect((await get(issued)).status).toBe(200);
      now += ttl;
      expect((await get(issued)).status).toBe(200);
      now += 1;
      const expired = await get(issued);
      expect(expired.status).toBe(401);
      expect(await expired.text()).toContain("Sign in");
      // Signed in again: a new cookie works.
      expect((await get(sessionValue(TOKEN, now))).status).toBe(200);
      // Signed far in the future (a cookie minted to live forever), another token, junk.
      expect((await get(sessionValue(TOKEN, now + 10 * ttl))).status).toBe(401);
      expect((await get(sessionValue("another-token-of-24-chars", now))).status).toBe(401);
      const [at] = issued.split(".");
      expect(
        (
          await get(
            `${(Number.parseInt(at ?? "0", 36) + ttl).toString(36)}.${issued.split(".")[1]}`,
          )
        ).status,
      ).toBe(401);
      for (const junk of ["", ".", "zzzzzzzzzzzzzzzz.ab", "abc", `${at}.`, `-1.${"0".repeat(64)}`])
        expect((await get(junk)).status).toBe(401);
    }
  });

  it("refuses a POST from another origin, or without the CSRF token, and changes nothing", async () => {
    const id = await failedIntent();
    const post = (headers: Record<string, string>, body: string) =>
      app().request(`${ORIGIN}/console/queue/intents/${id}/retry`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...signedIn, ...headers },
        body,
      });
    const token = csrfToken(TOKEN);
    expect((await post({ origin: "http://127.0.0.1:9999" }, form({ _csrf: token }))).status).toBe(
      403,
    );
    expect((await post({ origin: ORIGIN }, "")).status).toBe(403);
    expect((await post({ origin: ORIGIN }, form({ _csrf: "guess" }))).status).toBe(403);
    expect((await store.getIntent(id))?.status).toBe("failed");
    const ok = await post({ origin: ORIGIN }, form({ _csrf: token }));
    expect(ok.status).toBe(303);
    expect((await store.getIntent(id))?.status).toBe("pending");
  });

  it("closes a failed intent for good with Cancel, as offered ([H28] C48)", async () => {
    const id = await failedIntent();
    const detail = await (
      await app().request(`/console/queue/intents/${id}`, { headers: signedIn })
    ).text();
    expect(detail).toContain('data-action="cancel"');
    const done = await app().request(`${ORIGIN}/console/queue/intents/${id}/cancel`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: ORIGIN,
        ...signedIn,
      },
      body: form({ _csrf: csrfToken(TOKEN) }),
    });
    expect(done.status).toBe(303);
    expect(decodeURIComponent(done.headers.get("location") ?? "")).toContain("Cancelled");
    expect((await store.getIntent(id))?.status).toBe("cancelled");
  });

  it("C55 shows an expired intent (status filter, counts, detail) and sends it with Retry, no age limit", async () => {
    const [result] = await store.enqueueIntents([
      {
        idempotencyKey: "late",
        maxAgeMs: 60_000,
        message: {
          id: "m-late",
          channel: "qa",
          accountId: "main",
          direction: "outbound",
          target: { kind: "direct", id: "c1" },
          body: { markdown: "too late" },
        },
      },
    ]);
    const id = result?.intent.id ?? "";
    await store.transitionIntents([{ id, from: "pending", to: "expired" }]);
    const list = await (
      await app().request("/console/queue?status=expired", { headers: signedIn })
    ).text();
    expect(list).toContain(id);
    expect(list).toContain("status-expired");
    const detail = await (
      await app().request(`/console/queue/intents/${id}`, { headers: signedIn })
    ).text();
    expect(detail).toContain("expired");
    expect(detail).toContain("older than its maxAgeMs");
    expect(detail).toContain('data-action="retry"');
    expect(detail).not.toContain('data-action="cancel"');
    const done = await app().request(`${ORIGIN}/console/queue/intents/${id}/retry`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: ORIGIN,
        ...signedIn,
      },
      body: form({ _csrf: csrfToken(TOKEN) }),
    });
    expect(done.status).toBe(303);
    const after = await store.getIntent(id);
    expect(after?.status).toBe("pending");
    expect(after?.expiresAt).toBeUndefined();
  });

  it("renders no secret: the failure reason and raw intent are redacted as in queue show", async () => {
    const id = await failedIntent();
    for (const path of ["/console/queue", `/console/queue/intents/${id}`, "/console/accounts"]) {
      const page = await (await app().request(path, { headers: signedIn })).text();
      expect(page).not.toContain(PLATFORM_SECRET);
      expect(page).not.toContain(TOKEN);
    }
    const detail = await (
      await app().request(`/console/queue/intents/${id}`, { headers: signedIn })
    ).text();
    expect(detail).toContain("[redacted]");
    expect(detail).toContain("auth × not_dispatched");
  });

  it("serves htmx from its npm package, with a CSP that allows no inline script", async () => {
    const js = await app().request("/console/assets/htmx.min.js");
    expect(js.status).toBe(200);
    expect(await js.text()).toContain("htmx");
    const page = await app().request("/console/queue", { headers: signedIn });
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
  });

  it("refuses a console on a non-loopback host unless allowRemote", () => {
    const make = (allowRemote?: boolean) =>
      createGateway({
        store,
        channels: [],
        http: { host: "0.0.0.0", port: 0 },
        console: { token: TOKEN, ...(allowRemote === undefined ? {} : { allowRemote }) },
      });
    expect(() => make()).toThrow(ConfigError);
    expect(() => make()).toThrow(/console\.allowRemote/);
    expect(() => make(true)).not.toThrow();
  });

  it("is off unless the config has a console section naming an env var", () => {
    expect(parseConfig({}).console).toBeUndefined();
    expect(parseConfig({ console: { tokenEnv: "HERALD_CONSOLE_TOKEN" } }).console).toEqual({
      tokenEnv: "HERALD_CONSOLE_TOKEN",
      allowRemote: false,
    });
    expect(() => parseConfig({ console: { token: "inline" } })).toThrow(/console/);
  });

  it("filters the queue by status, channel, account, target and age", async () => {
    const id = await failedIntent();
    const rows = async (query: string) => {
      const page = await (
        await app().request(`/console/queue/rows?${query}`, { headers: signedIn })
      ).text();
      return page.includes(`data-intent="${id}"`);
    };
    expect(await rows("")).toBe(true);
    expect(await rows("status=failed&channel=qa&account=main&target=c1")).toBe(true);
    expect(await rows("status=pending")).toBe(false);
    expect(await rows("channel=telegram")).toBe(false);
    expect(await rows("account=other")).toBe(false);
    expect(await rows("target=c2")).toBe(false);
    expect(await rows("age=60")).toBe(false); // created just now: not older than an hour
    const counts = await (await app().request("/console/queue", { headers: signedIn })).text();
    expect(counts).toMatch(/data-status="failed"[^>]*><b>1<\/b>failed/);
  });

  it("shows a dead letter's raw payload (redacted) and field path; discard marks it", async () => {
    const letter = await store.putDeadLetter({
      channel: "qa",
      accountId: "main",
      raw: { update: { text: 1 }, token: PLATFORM_SECRET },
      error: {
        name: "InvalidPayloadError",
        code: "HERALD_INVALID",
        message: "expected a string",
        path: "update.text",
      },
      receivedAt: Date.now(),
    });
    const page = await (await app().request("/console/deadletters", { headers: signedIn })).text();
    expect(page).toContain('<code class="field-path">update.text</code>');
    expect(page).toContain("expected a string");
    expect(page).toContain("&quot;token&quot;: &quot;[redacted]&quot;");
    expect(page).not.toContain(PLATFORM_SECRET);
    const discard = await app().request(`${ORIGIN}/console/deadletters/${letter.id}/discard`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN, ...signedIn },
      body: form({ _csrf: csrfToken(TOKEN) }),
    });
    expect(discard.status).toBe(303);
    expect(
      new URL(discard.headers.get("location") ?? "", ORIGIN).searchParams.get("done"),
    ).toContain(`Discarded ${letter.id}`);
    expect((await store.getDeadLetter(letter.id))?.status).toBe("discarded");
  });

  it("shows each account's queue depth and recent failures by kind", async () => {
    await failedIntent();
    consoleApp.close();
    const runtime = createMessageRuntime({ store, adapters: [], logger: silentLogger });
    consoleApp = createConsoleApp({
      token: TOKEN,
      base: "/console",
      store,
      runtime,
      accounts: () => [
        {
          channel: "qa",
          account: "main",
          state: "down",
          since: Date.now() - 5_000,
          detail: `401 ${PLATFORM_SECRET}`,
          restarts: 3,
          stopped: false,
        },
      ],
      redact: (text) => text.replaceAll(PLATFORM_SECRET, "[redacted]"),
      logger: silentLogger,
      attempts: new AttemptLog(),
      clock: () => Date.now(),
      sessionTtlMs: DEFAULT_CONSOLE_SESSION_TTL_MS,
    });
    const page = await (await app().request("/console/accounts", { headers: signedIn })).text();
    expect(page).toMatch(
      /data-account="qa\/main"[\s\S]*>down<[\s\S]*401 \[redacted\][\s\S]*<td>3<\/td><td class="depth">0<\/td>[\s\S]*<code>auth<\/code> 1/,
    );
    expect(page).not.toContain(PLATFORM_SECRET);
  });
});
