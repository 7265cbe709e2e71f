/**
 * [H20] "`/healthz` answering within 1 s of every restart": `herald start` binds its HTTP socket
 * right after reading the config, before the handler module, the store and the channel plugins
 * load. While they do, `/livez` answers 200 (`phase: starting`), readiness answers 503
 * `starting`, and a webhook gets 503 + `Retry-After` (the platform retries) — nothing is stored.
 * The slow parts here: a handler module that takes its time to import (a bot connecting to
 * something at top level; the store is not even opened while it waits), and a store open
 * waiting for another process's lock on the SQLite file (the open runs in the store's worker
 * thread, so the event loop keeps answering).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { scaledMs, trackChild } from "@herald/core/testing";
import { QaPlatform } from "@herald/plugin-qa-channel/testing";
import { expect, it, onTestFinished } from "vitest";

const cli = fileURLToPath(new URL("./main.ts", import.meta.url));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const address = s.address();
      s.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** GET (or POST) `url`: status, body and headers; `undefined` when nothing listens. */
async function probe(url: string, init?: RequestInit) {
  try {
    const r = await fetch(url, init);
    return {
      status: r.status,
      body: (await r.json()) as Record<string, unknown>,
      headers: r.headers,
    };
  } catch {
    return undefined;
  }
}

it(
  "answers /livez, and readiness `starting`, while the handler module still loads and before the store opens",
  async () => {
    const platform = await QaPlatform.start({ port: 0 });
    const dir = mkdtempSync(join(tmpdir(), "herald-listener-"));
    onTestFinished(async () => {
      await platform.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const release = join(dir, "release");
    writeFileSync(
      join(dir, "bot.mjs"),
      `import { existsSync } from "node:fs";
while (!existsSync(${JSON.stringify(release)})) await new Promise((r) => setTimeout(r, 20));
export default async (turn) => { await turn.reply(turn.text); };
`,
    );
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const db = join(dir, "state.db");
    writeFileSync(
      join(dir, "herald.config.json"),
      JSON.stringify({
        store: { sqlite: { path: db } },
        http: { host: "127.0.0.1", port },
        handler: "./bot.mjs",
        channels: [{ plugin: "@herald/plugin-qa-channel", config: { baseUrl: platform.url } }],
      }),
    );
    const child = trackChild(
      spawn(
        process.execPath,
        ["--conditions=herald-source", cli, "start", "-c", join(dir, "herald.config.json")],
        { env: { ...process.env, HERALD_QA_TOKEN: "herald:qa-secret" }, stdio: "ignore" },
      ),
    );
    onTestFinished(() => {
      child.kill("SIGKILL");
    });
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));

    // The handler module never finishes loading until `release` exists: /livez must answer anyway.
    const deadline = Date.now() + scaledMs(20_000);
    let livez = await probe(`${base}/livez`);
    while (livez?.status !== 200 && Date.now() < deadline) {
      await sleep(20);
      livez = await probe(`${base}/livez`);
    }
    expect(livez?.status).toBe(200);
    expect(livez?.body).toEqual({ status: "ok", phase: "starting" });
    const healthz = await probe(`${base}/healthz`);
    expect(healthz?.status).toBe(503);
    expect(healthz?.body.status).toBe("starting");
    const webhook = await probe(`${base}/webhooks/qa/main`, { method: "POST", body: "{}" });
    expect(webhook?.status).toBe(503);
    expect(webhook?.headers.get("retry-after")).toBe("1");
    expect(existsSync(db)).toBe(false); // the store is not open yet

    writeFileSync(release, "");
    let ready = await probe(`${base}/healthz`);
    while (ready?.status !== 200 && Date.now() < deadline + 20_000) {
      await sleep(50);
      ready = await probe(`${base}/healthz`);
    }
    expect(ready?.status).toBe(200);
    expect(existsSync(db)).toBe(true);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  },
  scaledMs(60_000),
);

it(
  "answers /livez while the store's open waits for another process's lock on the SQLite file",
  async () => {
    const platform = await QaPlatform.start({ port: 0 });
    const dir = mkdtempSync(join(tmpdir(), "herald-listener-"));
    onTestFinished(async () => {
      await platform.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const db = join(dir, "state.db");
    // Another process (a backup, a migration) holds the file's exclusive lock: the gateway's open
    // (WAL switch, migrations) waits for it, up to its 5 s busy timeout.
    const holder = new DatabaseSync(db);
    holder.exec("BEGIN EXCLUSIVE");
    let held = true;
    const releaseLock = () => {
      if (!held) return;
      held = false;
      holder.exec("ROLLBACK");
      holder.close();
    };
    onTestFinished(releaseLock);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    writeFileSync(
      join(dir, "herald.config.json"),
      JSON.stringify({
        store: { sqlite: { path: db } },
        http: { host: "127.0.0.1", port },
        channels: [{ plugin: "@herald/plugin-qa-channel", config: { baseUrl: platform.url } }],
      }),
    );
    const child = trackChild(
      spawn(
        process.execPath,
        [
          "--conditions=herald-source",
          cli,
          "start",
          "-c",
          join(dir, "herald.config.json"),
          "--echo",
        ],
        { env: { ...process.env, HERALD_QA_TOKEN: "herald:qa-secret" }, stdio: "ignore" },
      ),
    );
    onTestFinished(() => {
      child.kill("SIGKILL");
    });
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));

    // The lock file of `herald start` exists once its store open began (and now waits on ours).
    const deadline = Date.now() + scaledMs(20_000);
    let livez = await probe(`${base}/livez`);
    while ((livez?.status !== 200 || !existsSync(`${db}.gateway-lock`)) && Date.now() < deadline) {
      await sleep(20);
      livez = await probe(`${base}/livez`);
    }
    expect(livez?.status).toBe(200);
    expect(existsSync(`${db}.gateway-lock`)).toBe(true);
    const during = await probe(`${base}/livez`);
    expect(during?.body).toEqual({ status: "ok", phase: "starting" });
    expect((await probe(`${base}/healthz`))?.status).toBe(503);
    releaseLock();

    let ready = await probe(`${base}/healthz`);
    while (ready?.status !== 200 && Date.now() < deadline + 20_000) {
      await sleep(50);
      ready = await probe(`${base}/healthz`);
    }
    expect(ready?.status).toBe(200);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  },
  scaledMs(60_000),
);
