/**
 * [H20] items 5, 8, 9 — the gateway's HTTP surface under hostile input and store faults, over
 * real HTTP and a real SQLite file:
 * - a webhook body above the route's limit is answered 413 before the rest is read (declared
 *   `Content-Length` and chunked), the receiver never sees it, the store is untouched, and RSS
 *   stays bounded while a 50 MB body is offered;
 * - `/metrics` keeps answering during a store outage (`herald_store_up 0`), logged through the
 *   logger;
 * - readiness checks that SQLite can be written, liveness never touches the store, and neither
 *   names the database file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { SqliteStateStore } from "@herald/core";
import type { ChannelReceiver } from "@herald/plugin-sdk/channel-message";
import { captureLogger } from "@herald/plugin-sdk/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GatewayMetrics } from "./metrics.ts";
import { type HttpServerHandle, startHttpServer } from "./server.ts";

let dir: string;
let store: SqliteStateStore;
let server: HttpServerHandle | undefined;
const lines: string[] = [];
const logger = captureLogger(lines);
/** The captured log entries, parsed. */
const logged = () => lines.map((l) => JSON.parse(l) as Record<string, unknown> & { msg: string });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "herald-http-"));
  store = new SqliteStateStore({ path: join(dir, "state.db"), busyTimeoutMs: 50 });
  lines.length = 0;
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await store.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

/** A receiver that records every body it reads as a dead letter (what a real one would store). */
function recordingReceiver(limit?: number): ChannelReceiver & { calls: number } {
  const r = {
    calls: 0,
    ...(limit === undefined ? {} : { maxWebhookBodyBytes: limit }),
    async webhook(req: Request) {
      r.calls += 1;
      const text = await req.text();
      await store.putDeadLetter({
        channel: "chat",
        raw: text,
        error: { name: "Error", code: "X", message: "x" },
        receivedAt: 1,
      });
      return new Response("{}", { status: 200 });
    },
  };
  return r;
}

async function serveWith(receivers: Map<string, ChannelReceiver>, extra = {}) {
  server = await startHttpServer({
    host: "127.0.0.1",
    port: 0,
    store,
    metrics: new GatewayMetrics(store, logger),
    receivers,
    logger,
    ...extra,
  });
  return server.url;
}

/** POSTs `total` bytes in 1 MiB chunks (chunked unless `declare`); resolves with the status. */
function offer(
  url: string,
  total: number,
  declare: boolean,
): Promise<{ status: number; body: string; sent: number }> {
  const chunk = Buffer.alloc(1024 * 1024, 0x61);
  return new Promise((resolve, reject) => {
    let sent = 0;
    const req = request(`${url}/webhooks/chat/A`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(declare ? { "content-length": total } : {}),
      },
    });
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d) => {
        body += d;
      });
      res.on("end", () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body, sent });
      });
    });
    req.on("error", (e) => (sent >= total ? reject(e) : undefined));
    const pump = () => {
      while (sent < total && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!req.destroyed) req.end();
    };
    pump();
  });
}

describe("webhook body limit (item 5)", () => {
  for (const declare of [true, false]) {
    it(`answers 413 to a 50 MB body (${declare ? "Content-Length" : "chunked"}) before reading it; nothing recorded`, async () => {
      const receiver = recordingReceiver(64 * 1024);
      const url = await serveWith(new Map([["chat/A", receiver]]));
      const rssBefore = process.memoryUsage().rss;
      const res = await offer(url, 50 * 1024 * 1024, declare);
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body)).toEqual({ error: "request body too large", limitBytes: 65_536 });
      expect(res.sent).toBeLessThan(50 * 1024 * 1024); // the rest was never taken
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(40 * 1024 * 1024);
      expect(receiver.calls).toBe(0);
      expect(await store.listDeadLetters({})).toEqual([]);
      expect(logged().find((l) => l.msg.includes("413"))).toMatchObject({
        channel: "chat",
        account: "A",
        limitBytes: 65_536,
      });
    });
  }

  it("accepts a body at the limit; the config's per-account limit wins over the plugin's", async () => {
    const receiver = recordingReceiver(1024 * 1024);
    const url = await serveWith(new Map([["chat/A", receiver]]), {
      bodyLimitOf: (channel: string, account: string) =>
        channel === "chat" && account === "A" ? 1000 : undefined,
    });
    const at = await fetch(`${url}/webhooks/chat/A`, { method: "POST", body: "x".repeat(1000) });
    expect(at.status).toBe(200);
    const over = await fetch(`${url}/webhooks/chat/A`, { method: "POST", body: "x".repeat(1001) });
    expect(over.status).toBe(413);
    expect(receiver.calls).toBe(1);
    expect(await store.listDeadLetters({})).toHaveLength(1);
  });

  it("defaults to 1 MiB when neither the plugin nor the config sets a limit", async () => {
    const receiver = recordingReceiver();
    const url = await serveWith(new Map([["chat/A", receiver]]));
    const over = await fetch(`${url}/webhooks/chat/A`, {
      method: "POST",
      body: "x".repeat(1024 * 1024 + 1),
    });
    expect(over.status).toBe(413);
    expect(receiver.calls).toBe(0);
  });
});

describe("/metrics during a store outage (item 8)", () => {
  it("serves what is known with herald_store_up 0 and logs through the logger", async () => {
    const url = await serveWith(new Map());
    const up = await (await fetch(`${url}/metrics`)).text();
    expect(up).toContain("herald_store_up 1");
    expect(up).toContain('herald_queue_depth{status="pending"} 0');
    await store.close(); // the store is gone
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain("herald_store_up 0");
    expect(body).not.toContain("herald_queue_depth{");
    expect(body).toContain("# TYPE herald_inbound_total counter");
    expect(logged().some((l) => l.msg.includes("metrics: the state store cannot be read"))).toBe(
      true,
    );
  });
});

describe("herald_store_up agrees with readiness ([H28] C50)", () => {
  it("is 0 while the store reads but cannot be written (a full disk), then 1 again", async () => {
    const url = await serveWith(new Map());
    expect(await (await fetch(`${url}/metrics`)).text()).toContain("herald_store_up 1");
    // Another connection holds the write lock: reads work (WAL), every write fails.
    const other = new DatabaseSync(join(dir, "state.db"));
    other.exec("BEGIN IMMEDIATE");
    try {
      const body = await (await fetch(`${url}/metrics`)).text();
      expect(body).toContain("herald_store_up 0");
      // What can still be read is still served.
      expect(body).toContain('herald_queue_depth{status="pending"} 0');
      expect(
        logged().some((l) => l.msg.includes("metrics: the state store cannot be written")),
      ).toBe(true);
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    expect(await (await fetch(`${url}/metrics`)).text()).toContain("herald_store_up 1");
  });
});

describe("liveness and readiness (item 9)", () => {
  it("readiness fails while SQLite cannot be written though it can be read; liveness stays up; no file name", async () => {
    const url = await serveWith(new Map());
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    // Another connection holds the write lock: reads work (WAL), every write fails.
    const other = new DatabaseSync(join(dir, "state.db"));
    other.exec("BEGIN IMMEDIATE");
    try {
      await new Promise((r) => setTimeout(r, 1100)); // past the probe's 1 s cache
      for (const path of ["/readyz", "/healthz"]) {
        const res = await fetch(`${url}${path}`);
        expect(res.status).toBe(503);
        const text = await res.text();
        expect(JSON.parse(text)).toMatchObject({
          status: "unavailable",
          store: { up: false, failed: "write" },
        });
        expect(text).not.toContain("state.db");
        expect(text).not.toContain(dir);
      }
      const live = await fetch(`${url}/livez`);
      expect(live.status).toBe(200);
      expect(await live.json()).toEqual({ status: "ok", phase: "ready" });
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    await new Promise((r) => setTimeout(r, 1100));
    const back = await fetch(`${url}/readyz`);
    expect(back.status).toBe(200);
    expect(await back.json()).toMatchObject({ status: "ok", store: { up: true } });
  });

  it("a closed store: readiness 503 without the store's error message", async () => {
    const url = await serveWith(new Map());
    await store.close();
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({
      status: "unavailable",
      store: { up: false, failed: "read" },
    });
    expect(text).not.toContain(dir);
    expect((await fetch(`${url}/livez`)).status).toBe(200);
  });
});

describe("webhooks of an account still opening", () => {
  it("answer 503 + Retry-After (the platform retries), not 404; an unknown account is a 404", async () => {
    const opening = {
      channel: "telegram",
      account: "main",
      state: "connecting" as const,
      since: 1,
      restarts: 0,
      stopped: false,
    };
    const url = await serveWith(new Map(), {
      phase: () => "recovering" as const,
      accounts: () => [opening],
    });
    const res = await fetch(`${url}/webhooks/telegram/main`, { method: "POST", body: "{}" });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    const unknown = await fetch(`${url}/webhooks/telegram/other`, { method: "POST", body: "{}" });
    expect(unknown.status).toBe(404);
  });
});
