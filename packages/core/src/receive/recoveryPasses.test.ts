/**
 * Inbound recovery of channels whose adapter is registered after `start()` — the gateway's
 * accounts: it starts the runtime, then opens each account (`createAccount` → `addAdapter`).
 * The `start()` pass saw no channel, so messages a SIGKILL interrupted after the platform was
 * answered waited for the periodic pass, 30 s later (the SIGKILL webhook load test, with group
 * commit on, counted them as lost). And the durability contract under group commit: an update is
 * answered only after its record committed, whatever else shares the transaction.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../logger.ts";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { scaledMs } from "../testing/timeScale.ts";
import { scanInbox } from "./inbox.ts";
import { InboundRecoveryPasses } from "./recoveryPasses.ts";
import { deferred } from "./testing/deferred.ts";
import { createFakeTelegramAdapter, type TeleUpdate } from "./testing/fakeTelegram.ts";
import type { ReceiveRecoverReport } from "./types.ts";

const child = fileURLToPath(new URL("./testing/webhookChild.ts", import.meta.url));
let dir = "";
let runtime: MessageRuntime | undefined;
afterEach(async () => {
  await runtime?.stop(100);
  runtime = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = "";
});

describe("SIGKILL after acknowledged updates, group commit on", () => {
  it(
    "every acknowledged update was recorded, and an adapter registered after start() recovers them at once",
    async () => {
      dir = mkdtempSync(join(tmpdir(), "herald-late-adapter-"));
      const db = join(dir, "state.db");
      // 20 updates in one tick, killed right after the 10th was acknowledged.
      const crashed = spawnSync(process.execPath, [child, db, join(dir, "log"), "burst", "20:10"], {
        encoding: "utf8",
        timeout: scaledMs(20_000),
      });
      expect(crashed.signal).toBe("SIGKILL");
      const acked = crashed.stdout
        .split("\n")
        .filter((l) => l.startsWith("acked "))
        .map((l) => Number(l.slice(6)));
      expect(acked.length).toBeGreaterThanOrEqual(10);

      const store = new SqliteStateStore({ path: db, groupCommit: {} });
      const { records } = await scanInbox(store, "telegram");
      const recorded = records.map((r) => (r.record.raw as TeleUpdate).update_id);
      // No update answered before its record committed.
      for (const id of acked) expect(recorded).toContain(id);

      // The restart, as the gateway does it: runtime first, the account's adapter once it opened.
      const processed: number[] = [];
      const platform = new FakePlatform();
      const rt = createMessageRuntime({
        store,
        adapters: [],
        delivery: { workerId: "gateway-1", pollIntervalMs: 5 },
        receive: {
          handler: (ctx) => {
            processed.push((ctx.input.raw as TeleUpdate).update_id);
          },
        },
      });
      runtime = rt;
      await rt.start();
      expect(await rt.startupRecovery()).toMatchObject({ redispatched: 0 }); // no channel yet
      const receive = createFakeTelegramAdapter({
        ackPolicy: { kind: "immediate", reason: "webhook-timeout" },
      }).receive;
      if (!receive) throw new Error("the fake adapter receives");
      rt.addAdapter(
        {
          ...createFakeAdapter({ id: "telegram", transport: inProcessTransport(platform) }),
          receive,
        },
        "main",
      );
      expect(rt.isRecovering()).toBe(true);
      // Before the fix this pass did not exist: the next one came 30 s later.
      const report = await rt.startupRecovery();
      expect(report).toMatchObject({ processed: recorded.length, deadLettered: 0 });
      expect(rt.isRecovering()).toBe(false);
      expect([...processed].sort((a, b) => a - b)).toEqual([...recorded].sort((a, b) => a - b));
      for (const id of acked) expect(processed).toContain(id);
    },
    scaledMs(30_000),
  );
});

describe("InboundRecoveryPasses", () => {
  const report = (processed: number): ReceiveRecoverReport => ({
    redispatched: processed,
    processed,
    deadLettered: 0,
    held: 0,
  });

  it("serves a channel registered while a pass runs with the next pass, never dropping it", async () => {
    const calls: string[][] = [];
    const gates = [deferred(), deferred()];
    const passes = new InboundRecoveryPasses({
      recover: async (channels) => {
        calls.push([...channels]);
        await gates[calls.length - 1]?.promise;
        return report(channels.length);
      },
      channels: () => ["a"],
      log: silentLogger,
      intervalMs: 60_000,
    });
    passes.channelAdded("ignored"); // before start(): the start() pass covers what is there
    passes.start();
    passes.channelAdded("b");
    passes.channelAdded("c");
    expect(passes.recovering).toBe(true);
    const settled = passes.settled();
    gates[0]?.resolve();
    gates[1]?.resolve();
    expect(await settled).toEqual(report(3));
    expect(calls).toEqual([["a"], ["b", "c"]]);
    expect(passes.recovering).toBe(false);
    passes.stop();
  });

  it("reports undefined when a startup pass failed, and keeps serving later requests", async () => {
    let fail = true;
    const calls: string[][] = [];
    const passes = new InboundRecoveryPasses({
      recover: async (channels) => {
        calls.push([...channels]);
        if (fail) throw new Error("store down");
        return report(1);
      },
      channels: () => ["a"],
      log: silentLogger,
      intervalMs: 60_000,
    });
    expect(await passes.settled()).toBeUndefined(); // before start()
    passes.start();
    expect(await passes.settled()).toBeUndefined();
    fail = false;
    passes.channelAdded("b");
    await passes.settled();
    expect(calls).toEqual([["a"], ["b"]]);
    passes.stop();
  });
});
