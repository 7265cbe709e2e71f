/**
 * [H28] C50 as an operator sees it: the store's disk fills, a message arrives, space returns.
 * While writes fail, `/metrics` says `herald_store_up 0` (as `/healthz` does) and counts the
 * inbound waiting for a retry, the console's queue page lists it and `herald queue ls` reports
 * it (asked of the running gateway: the store could not hold it); when space returns the running
 * gateway handles it — once — and the list empties.
 */
import { createMessageRuntime, SqliteStateStore, silentLogger } from "@herald/core";
import {
  createFakeAdapter,
  FakePlatform,
  fullDisk,
  inProcessTransport,
} from "@herald/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { queueList } from "../cli/commands/queue.ts";
import { GatewayMetrics } from "../http/metrics.ts";
import { startHttpServer } from "../http/server.ts";
import { benchReceive } from "../testing/fakeChannels.ts";
import { AttemptLog } from "./attempts.ts";
import { SESSION_COOKIE, sessionValue } from "./auth.ts";
import { createConsoleApp } from "./console.ts";
import { DEFAULT_CONSOLE_SESSION_TTL_MS } from "./deps.ts";

const TOKEN = "a-console-token-of-some-length";
let teardown: (() => Promise<void>) | undefined;
afterEach(async () => {
  await teardown?.();
  teardown = undefined;
});

describe("inbound that failed before its handler ran (C50)", () => {
  it("is listed and counted while the disk is full, then handled once by the running gateway", async () => {
    const inner = new SqliteStateStore({ path: ":memory:" });
    const disk = fullDisk(inner);
    const handled: string[] = [];
    const runtime = createMessageRuntime({
      store: disk.store,
      adapters: [
        {
          accountId: "main",
          adapter: {
            ...createFakeAdapter({ transport: inProcessTransport(new FakePlatform()) }),
            receive: benchReceive("qa", "bot-main"),
          },
        },
      ],
      receive: {
        retry: { baseMs: 5, maxMs: 20 },
        handler: (ctx) => {
          handled.push(ctx.input.platformMessageId ?? "");
        },
      },
    });
    const metrics = new GatewayMetrics(disk.store, silentLogger);
    metrics.watchPendingInbound(() => runtime.pendingInbound());
    const consoleApp = createConsoleApp({
      token: TOKEN,
      base: "/console",
      store: disk.store,
      runtime,
      accounts: () => [],
      redact: (text) => text,
      logger: silentLogger,
      attempts: new AttemptLog(),
      clock: () => Date.now(),
      sessionTtlMs: DEFAULT_CONSOLE_SESSION_TTL_MS,
    });
    const server = await startHttpServer({
      host: "127.0.0.1",
      port: 0,
      store: disk.store,
      metrics,
      receivers: new Map(),
      logger: silentLogger,
      console: consoleApp,
    });
    const app = {
      request: (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init),
    };
    const queueLs = async () => {
      const out = { text: "", isTTY: false, write: (s: string) => (out.text += s) };
      await queueList(inner, { gatewayUrl: server.url }, out);
      return out.text;
    };
    teardown = async () => {
      await server.close();
      consoleApp.close();
      await runtime.stop();
      await inner.close();
    };
    const signedIn = { cookie: `${SESSION_COOKIE}=${sessionValue(TOKEN, Date.now())}` };
    const queuePage = async () =>
      (await app.request("/console/queue", { headers: signedIn })).text();
    const scrape = async () => (await app.request("/metrics")).text();

    disk.full = true;
    const update = { id: "101", chat: "c1", from: "alice", text: "are you there?" };
    const ticket = runtime.receive(update, { channel: "qa", accountId: "main" });
    expect(await ticket.done).toMatchObject({ status: "failed", recorded: false });

    const page = await queuePage();
    expect(page).toContain("Inbound waiting for a retry (1)");
    expect(page).toContain("qa/main");
    expect(page).toContain("database or disk is full");
    const metricsText = await scrape();
    expect(metricsText).toContain("herald_store_up 0");
    expect(metricsText).toContain('herald_inbound_retry_pending{channel="qa"} 1');
    expect((await app.request("/healthz")).status).toBe(503);
    expect(await queueLs()).toContain(
      `inbound waiting for a retry in the gateway at ${server.url}: qa 1`,
    );
    expect(handled).toEqual([]);

    disk.full = false;
    await expect.poll(() => handled).toEqual(["c1:101"]);
    await expect.poll(() => runtime.pendingInbound()).toEqual([]);
    expect(await queuePage()).not.toContain("Inbound waiting for a retry");
    const after = await scrape();
    expect(after).toContain("herald_store_up 1");
    expect(after).not.toContain('herald_inbound_retry_pending{channel="qa"}');
    expect(await queueLs()).not.toContain("inbound waiting for a retry");
    // Once: the platform's redelivery of the same message is a duplicate.
    const again = runtime.receive(update, { channel: "qa", accountId: "main" });
    expect((await again.done).status).toBe("duplicate");
    expect(handled).toEqual(["c1:101"]);
  });
});
