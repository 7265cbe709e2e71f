/**
 * [H20] item 4 — the gateway is reachable during startup recovery: `start()` opens the HTTP
 * server and the receivers without waiting for inbound recovery, whose re-run handlers may
 * take long; readiness says `recovering` until the pass ends, then `ok`. An account opened after
 * the runtime started (`createAccount`) gets its own pass at once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStateStore } from "@herald/core";
import { scaledMs } from "@herald/core/testing";
import { afterEach, expect, it } from "vitest";
import type { Gateway } from "./gateway.ts";
import { type BenchUpdate, benchAccount, benchGateway } from "./testing/fakeChannels.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * Run 1 on a fresh SQLite file: the platform was answered for each update, then its handler
 * failed (the process "died" mid-turn) — the messages are left to recovery. @returns the file.
 */
async function leftToRecovery(updates: readonly BenchUpdate[]): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "herald-startup-"));
  dirs.push(dir);
  const path = join(dir, "state.db");
  const first = benchGateway([benchAccount("chat", "A")], {
    store: new SqliteStateStore({ path }),
  });
  first.gateway.onMessage(() => {
    throw new Error("crashed mid-turn");
  });
  await first.gateway.start();
  const source = {
    channel: "chat",
    accountId: "A",
    ackPolicy: { kind: "immediate", reason: "webhook-timeout" },
  } as const;
  await Promise.all(
    updates.map(async (update) => {
      const t = first.gateway.runtime.receive(update, source);
      expect((await t.ack).kind).toBe("accept");
      expect((await t.done).status).toBe("failed");
    }),
  );
  await first.close();
  return path;
}

/** Answers every message with `answer to <text>`; @returns the count of handler runs so far. */
function answering(gateway: Gateway): () => number {
  let runs = 0;
  gateway.onMessage(async (turn) => {
    runs += 1;
    await turn.reply(`answer to ${turn.text}`);
  });
  return () => runs;
}

it("serves /livez, /readyz (recovering) and webhooks while a recovered handler still runs", async () => {
  const path = await leftToRecovery([{ id: "1", chat: "g", from: "u", text: "hi" }]);

  // Run 2: recovery re-runs the handler, which takes its time.
  let release: () => void = () => {};
  const slow = new Promise<void>((r) => {
    release = r;
  });
  let runs = 0;
  const a = benchAccount("chat", "A");
  const second = benchGateway([a], {
    store: new SqliteStateStore({ path }),
    http: { host: "127.0.0.1", port: 0 },
  });
  second.gateway.onMessage(async (turn) => {
    runs += 1;
    await slow;
    await turn.reply(`answer to ${turn.text}`);
  });
  try {
    const started = await Promise.race([
      second.gateway.start().then(() => "started"),
      new Promise((r) => setTimeout(() => r("still starting after 3 s"), 3000)),
    ]);
    expect(started).toBe("started");
    const url = second.gateway.url as string;
    expect((await fetch(`${url}/livez`)).status).toBe(200);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "recovering", phase: "recovering" });
    expect(second.gateway.phase()).toBe("recovering");
    expect(runs).toBe(1); // the recovered handler is running

    release();
    await second.gateway.runtime.startupRecovery();
    expect(second.gateway.phase()).toBe("ready");
    await new Promise((r) => setTimeout(r, 1100)); // past the probe cache
    expect(await (await fetch(`${url}/readyz`)).json()).toMatchObject({ status: "ok" });
    expect(a.platform.visible().map((m) => m.text)).toEqual(["answer to hi"]);
    expect(runs).toBe(1);
  } finally {
    release();
    await second.close();
  }
});

it(
  "recovers a backlog of 200 recorded messages without waiting for the replies' delivery; /livez answers within 1 s throughout",
  async () => {
    const backlog = 200;
    const path = await leftToRecovery(
      Array.from({ length: backlog }, (_, i) => ({
        id: String(i),
        chat: `g${i}`,
        from: "u",
        text: `m${i}`,
      })),
    );

    // Run 2: replies go out at 4/s (50 s for the backlog); recovery must not wait for them.
    const a = benchAccount("chat", "A", {
      rateLimits: [{ scope: "account", limit: 4, intervalMs: 1_000 }],
    });
    const second = benchGateway([a], {
      store: new SqliteStateStore({ path }),
      http: { host: "127.0.0.1", port: 0 },
    });
    const runs = answering(second.gateway);
    try {
      await second.gateway.start();
      expect(second.gateway.phase()).toBe("recovering");
      const url = second.gateway.url as string;
      let done = false;
      let visibleWhenRecovered = -1;
      const pass = second.gateway.runtime.startupRecovery().then((report) => {
        done = true;
        visibleWhenRecovered = a.platform.visible().length;
        return report;
      });
      const livez: number[] = [];
      while (!done) {
        const s = Date.now();
        const r = await fetch(`${url}/livez`);
        await r.body?.cancel();
        expect(r.status).toBe(200);
        livez.push(Date.now() - s);
        await new Promise((r) => setTimeout(r, 50));
      }
      const report = await pass;
      expect(report).toMatchObject({ processed: backlog, deadLettered: 0 });
      console.log(`recovery pass: ${visibleWhenRecovered} replies visible; /livez ms ${livez}`);
      // Before [H20] the pass starved the event loop (the store answers without a macrotask in
      // between): /livez waited for the whole pass (≥ 50 s here), so it answered once, after it.
      // Now it answers between records (70–220 ms on a quiet machine): more than once during
      // the pass — an ordering, not a latency bound, so it holds on a busy machine.
      expect(livez.length).toBeGreaterThan(1);
      // The pass ended while most replies still waited for the rate limit (before [H20] each
      // recovered handler held one of 8 slots until its reply was delivered, so the pass ended
      // only with the last replies).
      expect(visibleWhenRecovered).toBeLessThan(backlog / 2);
      // Each handler ran once, in the pass; the replies are intents the worker delivers.
      const texts = a.platform.visible().map((m) => m.text);
      expect(new Set(texts).size).toBe(texts.length);
      expect(await second.store.countIntents()).toMatchObject({ failed: 0 });
      expect(runs()).toBe(backlog);
    } finally {
      await second.close();
    }
  },
  scaledMs(60_000),
);

it("recovers at startup the messages of an account opened after the runtime started (createAccount)", async () => {
  const path = await leftToRecovery([{ id: "1", chat: "g", from: "u", text: "hi" }]);

  // Run 2: the account opens asynchronously (like Telegram's `getMe`), after `runtime.start()`:
  // its adapter is registered only then, so the `start()` pass does not see its channel.
  const a = benchAccount("chat", "A");
  const late = {
    ...a,
    channel: {
      ...a.channel,
      plugin: {
        ...a.channel.plugin,
        createAccount: async () => {
          await new Promise((r) => setTimeout(r, 50));
          return { adapter: a.adapter, close: async () => {} };
        },
      },
    },
  };
  const second = benchGateway([late], { store: new SqliteStateStore({ path }) });
  const runs = answering(second.gateway);
  try {
    await second.gateway.start();
    // Before, the next pass came 30 s later: the answered message waited that long.
    expect(await second.gateway.runtime.startupRecovery()).toMatchObject({ processed: 1 });
    expect(runs()).toBe(1);
    expect(second.gateway.phase()).toBe("ready");
  } finally {
    await second.close();
  }
});
