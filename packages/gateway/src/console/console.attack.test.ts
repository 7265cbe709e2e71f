/**
 * [H18] review: the console under attack and bad input, over real HTTP requests to the hono
 * app — asset names that are not assets, bad filter and window values (a typed 400 naming the
 * field), huge dead letters (truncated with a note), a console token too short for
 * `createGateway`, header injection through the sign-in `next`, and secrets in every page.
 */
import { createMessageRuntime, redactSecrets, SqliteStateStore, silentLogger } from "@herald/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../config/errors.ts";
import { createGateway } from "../gateway.ts";
import { herald } from "../herald.ts";
import { GatewayMetrics } from "../http/metrics.ts";
import { createHttpApp } from "../http/server.ts";
import { AttemptLog } from "./attempts.ts";
import { csrfToken, SESSION_COOKIE, sessionValue } from "./auth.ts";
import { type ConsoleApp, createConsoleApp } from "./console.ts";
import { DEFAULT_CONSOLE_SESSION_TTL_MS } from "./deps.ts";

const TOKEN = "a-console-token-of-some-length";
const SECRET = "xoxb-platform-secret-value";
const ORIGIN = "http://127.0.0.1:8787";
const signedIn = { cookie: `${SESSION_COOKIE}=${sessionValue(TOKEN, Date.now())}` };

let store: SqliteStateStore;
let consoleApp: ConsoleApp;
const app = () =>
  createHttpApp({
    store,
    metrics: new GatewayMetrics(store, silentLogger),
    receivers: new Map(),
    logger: silentLogger,
    console: consoleApp,
  });
const get = (path: string) => app().request(`${ORIGIN}${path}`, { headers: signedIn });

beforeEach(() => {
  store = new SqliteStateStore({ path: ":memory:" });
  const runtime = createMessageRuntime({ store, adapters: [], logger: silentLogger });
  consoleApp = createConsoleApp({
    token: TOKEN,
    base: "/console",
    store,
    runtime,
    accounts: () => [],
    redact: (text) => text.replaceAll(SECRET, "[redacted]").replaceAll(TOKEN, "[redacted]"),
    logger: silentLogger,
    attempts: new AttemptLog(),
    clock: () => Date.now(),
    sessionTtlMs: DEFAULT_CONSOLE_SESSION_TTL_MS,
  });
});
afterEach(async () => {
  consoleApp.close();
  await store.close();
});

describe("web console under attack", () => {
  it("answers 404 for asset names that are not assets (no prototype lookups)", async () => {
    for (const name of [
      "__proto__",
      "constructor",
      "toString",
      "hasOwnProperty",
      "..%2Fconsole.ts",
    ]) {
      const res = await app().request(`/console/assets/${name}`);
      expect(res.status, name).toBe(404);
    }
  });

  it("answers a bad queue filter with a 400 naming the field", async () => {
    for (const [query, field] of [
      ["status=bogus", "status"],
      ["age=abc", "age"],
      ["age=-5", "age"],
    ] as const) {
      for (const path of ["/console/queue", "/console/queue/rows", "/console/queue/counts"]) {
        const res = await get(`${path}?${query}`);
        expect(res.status, `${path}?${query}`).toBe(400);
        expect(await res.text()).toContain(field);
      }
    }
    const dl = await get("/console/deadletters?status=bogus");
    expect(dl.status).toBe(400);
    expect(await dl.text()).toContain("status");
  });

  it("answers a bad conversation window with a 400 naming the field, never a 500", async () => {
    await store.appendLedger([
      { conversation: "c", type: "turn/start", turnId: "t1", at: 1, data: { rootMessageId: "m" } },
    ] as never);
    for (const [query, field] of [
      ["to=-5", "to"],
      ["to=abc", "to"],
      ["to=1.5", "to"],
      ["size=0", "size"],
      ["size=abc", "size"],
      ["size=5000", "size"],
    ] as const) {
      for (const path of ["/console/conversations/view", "/console/conversations/window"]) {
        const res = await get(`${path}?c=c&${query}`);
        expect(res.status, `${path} ${query}`).toBe(400);
        expect(await res.text()).toContain(field);
      }
    }
    expect((await get("/console/conversations/view?c=c&to=1&size=10")).status).toBe(200);
  });

  it("truncates a 5 MB dead-letter payload with a note, and redacts it", async () => {
    const big = `${SECRET}${"x".repeat(5 * 1024 * 1024)}`;
    await store.putDeadLetter({
      channel: "qa",
      accountId: "main",
      raw: { body: big },
      error: { name: "InvalidPayloadError", message: "bad", path: "body" },
      receivedAt: Date.now(),
    });
    const res = await get("/console/deadletters");
    const page = await res.text();
    expect(res.status).toBe(200);
    expect(page.length).toBeLessThan(200_000);
    expect(page).toMatch(/Truncated: showing the first 32 KiB of 5,120 KiB/);
    expect(page).not.toContain(SECRET);
  });

  it("does not 500 on a sign-in next with a line break", async () => {
    const res = await app().request(`${ORIGIN}/console/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN },
      body: new URLSearchParams({
        token: TOKEN,
        next: "/console/queue\r\nset-cookie: x=1",
      }).toString(),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/console/");
  });

  it("refuses a console token shorter than 16 characters in createGateway too", () => {
    const make = (token: string) =>
      createGateway({
        store,
        channels: [],
        http: { host: "127.0.0.1", port: 0 },
        console: { token },
      });
    for (const token of ["", "short", "fifteen-chars!!"]) {
      expect(() => make(token), JSON.stringify(token)).toThrow(ConfigError);
    }
  });

  it("refuses a console token holding whitespace (a trailing newline locks every operator out)", () => {
    const make = (token: string) =>
      createGateway({
        store,
        channels: [],
        http: { host: "127.0.0.1", port: 0 },
        console: { token },
      });
    for (const token of [`${TOKEN}\n`, ` ${TOKEN}`, "a-console token-of-some-length"]) {
      expect(() => make(token), JSON.stringify(token)).toThrow(/whitespace or a control character/);
    }
  });

  it("answers an unknown console page with a 404 page that says where to go", async () => {
    const res = await get("/console/nosuchpage");
    expect(res.status).toBe(404);
    const page = await res.text();
    expect(page).toContain("No console page at /console/nosuchpage");
    expect(page).toContain("Sign out"); // the navigation is there
    expect((await app().request("/console/nosuchpage")).status).toBe(401); // signed out: sign in first
    // The live event stream needs the session too (it would tell an outsider when the queue moves).
    const events = await app().request("/console/events");
    expect(events.status).toBe(401);
    expect(events.headers.get("content-type")).not.toContain("text/event-stream");
  });

  it("shows only notices the console signed: a crafted ?done= or fork refusal shows nothing", async () => {
    const lie = "Your token expired: sign in again at https://evil.example";
    const letter = await store.putDeadLetter({
      channel: "qa",
      raw: {},
      error: { name: "InvalidPayloadError", message: "bad" },
      receivedAt: Date.now(),
    });
    const forged = await (await get(`/console/deadletters?done=${encodeURIComponent(lie)}`)).text();
    expect(forged).not.toContain("evil.example");
    const fork = await (
      await get(
        `/console/conversations/view?c=x&forkError=open_turn&at=1&turn=${encodeURIComponent(lie)}`,
      )
    ).text();
    expect(fork).not.toContain("evil.example");
    expect(fork).not.toContain("Cannot branch there");
    // The console's own redirect carries a signature, and its notice shows.
    const discard = await app().request(`${ORIGIN}/console/deadletters/${letter.id}/discard`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN, ...signedIn },
      body: new URLSearchParams({ _csrf: csrfToken(TOKEN) }).toString(),
    });
    const location = discard.headers.get("location") ?? "";
    expect(location).toContain("sig=");
    expect(await (await get(location)).text()).toContain(`Discarded ${letter.id}.`);
    // A signed notice with its text changed is a forgery too.
    const tampered = location.replace(/done=[^&]*/, `done=${encodeURIComponent(lie)}`);
    expect(await (await get(tampered)).text()).not.toContain("evil.example");
  });

  it("refuses every POST route of the console cross-site and without the CSRF token", async () => {
    const posts = consoleApp.app.routes
      .filter((r) => r.method === "POST" && !r.path.includes("*"))
      .map((r) => r.path.replace(":id", "some-id"));
    expect(posts.length).toBeGreaterThanOrEqual(8);
    const body = new URLSearchParams({ _csrf: csrfToken(TOKEN), c: "x", atSeq: "1", token: TOKEN });
    for (const path of posts) {
      const cross = await app().request(`${ORIGIN}/console${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: "http://evil.example",
          ...signedIn,
        },
        body: body.toString(),
      });
      expect(cross.status, `cross-site ${path}`).toBe(403);
      if (path === "/login") continue; // signing in needs the token, not a session
      const noToken = await app().request(`${ORIGIN}/console${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: ORIGIN,
          ...signedIn,
        },
        body: new URLSearchParams({ c: "x", atSeq: "1" }).toString(),
      });
      expect(noToken.status, `no CSRF token ${path}`).toBe(403);
    }
  });

  it("refuses to start with the token's env var missing or too short", async () => {
    const config = {
      store: { sqlite: { path: ":memory:" } },
      channels: [],
      http: { host: "127.0.0.1", port: 0 },
      console: { tokenEnv: "HERALD_CONSOLE_TOKEN" },
    };
    const io = { notice: { write: () => true } };
    await expect(herald(config, { env: {}, ...io })).rejects.toThrow(/console\.tokenEnv/);
    await expect(herald(config, { env: { HERALD_CONSOLE_TOKEN: "short" }, ...io })).rejects.toThrow(
      /at least 16/,
    );
  });

  it("redacts a secret with quotes and newlines in a dead letter as queue show does", async () => {
    const key = '{"type":"service_account","private_key":"-----BEGIN\\nk\\n-----END"}';
    consoleApp.close();
    const runtime = createMessageRuntime({ store, adapters: [], logger: silentLogger });
    consoleApp = createConsoleApp({
      token: TOKEN,
      base: "/console",
      store,
      runtime,
      accounts: () => [],
      redact: (text) => redactSecrets(text, [key, TOKEN]),
      logger: silentLogger,
      attempts: new AttemptLog(),
      clock: () => Date.now(),
      sessionTtlMs: DEFAULT_CONSOLE_SESSION_TTL_MS,
    });
    await store.putDeadLetter({
      channel: "qa",
      raw: { credentials: key },
      error: { name: "InvalidPayloadError", message: `cannot use ${key}` },
      receivedAt: Date.now(),
    });
    const page = await (await get("/console/deadletters")).text();
    expect(page).not.toContain("service_account");
    expect(page).toContain("[redacted]");
  });

  it("signs out: the cookie is cleared with the flags it was set with", async () => {
    const res = await app().request(`${ORIGIN}/console/logout`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN, ...signedIn },
      body: new URLSearchParams({ _csrf: csrfToken(TOKEN) }).toString(),
    });
    expect(res.status).toBe(303);
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/herald_console=;/);
    expect(cookie).toMatch(/Max-Age=0/);
    expect(cookie).toMatch(/HttpOnly/);
  });
});
