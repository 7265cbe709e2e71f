/**
 * Recovery of recorded inbound messages: nothing the platform was told we accepted is lost,
 * even when the process dies (a real SIGKILL) or the handler fails after the answer.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { scaledMs } from "../testing/timeScale.ts";
import { deferred } from "./testing/deferred.ts";
import { createFakeTelegramAdapter, teleUpdate } from "./testing/fakeTelegram.ts";
import { receiveBench } from "./testing/harness.ts";

const tg = { channel: "telegram", accountId: "main" };
const immediate = createFakeTelegramAdapter({
  ackPolicy: { kind: "immediate", reason: "webhook-timeout" },
});

describe("recover()", () => {
  it("re-dispatches a message whose handler failed after the platform was answered", async () => {
    let calls = 0;
    const bench = receiveBench([immediate], {
      handler: () => {
        calls += 1;
        if (calls === 1) throw new Error("tool crashed");
      },
    });
    const ticket = bench.runtime.receive(teleUpdate(1), tg);
    expect(await ticket.ack).toEqual({ kind: "accept" });
    expect(await ticket.done).toMatchObject({ status: "failed", acked: true, recorded: true });
    expect(await bench.runtime.recover()).toEqual({
      redispatched: 1,
      processed: 1,
      deadLettered: 0,
      held: 0,
    });
    expect(bench.processed).toMatchObject([{ id: "telegram/main/1:1", attempt: 2 }]);
    // Resolved records are behind the cursor: a second pass has nothing to do.
    expect(await bench.runtime.recover()).toEqual({
      redispatched: 0,
      processed: 0,
      deadLettered: 0,
      held: 0,
    });
  });

  it("recovers a backlog larger than its lanes in one pass and moves the cursor past it", async () => {
    // Handlers that finish at once keep the 8 lanes in step: at the end several wait for the
    // last record together, and only one may take it (the others once read past the list,
    // failing the pass: 16 of 20 recovered, the cursor never moved).
    let fail = true;
    const bench = receiveBench([immediate], {
      handler: () => {
        if (fail) throw new Error("tool crashed");
      },
    });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => bench.runtime.receive(teleUpdate(i + 1), tg).done),
    );
    fail = false;
    expect(await bench.runtime.recover()).toEqual({
      redispatched: 20,
      processed: 20,
      deadLettered: 0,
      held: 0,
    });
    // Past the 20 records and their 20 `failed` markers the pass read.
    expect(await bench.store.getWatermark({ channel: "telegram", source: "herald.inbox" })).toBe(
      "40",
    );
    expect((await bench.runtime.recover()).redispatched).toBe(0);
  });

  it("leaves a message this process is still processing alone, and keeps the cursor before it", async () => {
    const gate = deferred();
    const bench = receiveBench([immediate], { handler: () => gate.promise });
    const slow = bench.runtime.receive(teleUpdate(1), tg);
    await slow.ack;
    expect(await bench.runtime.recover()).toMatchObject({ held: 1, redispatched: 0 });
    gate.resolve();
    expect((await slow.done).status).toBe("processed");
    expect(await bench.runtime.recover()).toMatchObject({ held: 0, redispatched: 0 });
    expect(bench.processed).toHaveLength(1);
  });

  it("moves a message to a dead letter after maxAttempts, and a replay after the fix processes it", async () => {
    let broken = true;
    const bench = receiveBench([immediate], {
      maxAttempts: 2,
      handler: () => {
        if (broken) throw new Error("bad prompt template");
      },
    });
    const update = teleUpdate(1, { text: "poison" });
    expect((await bench.runtime.receive(update, tg).done).status).toBe("failed"); // attempt 1
    expect(await bench.runtime.recover()).toMatchObject({ redispatched: 1, processed: 0 }); // attempt 2
    expect(await bench.runtime.recover()).toMatchObject({ deadLettered: 1 });
    const [letter] = await bench.runtime.deadLetters.list();
    expect(letter).toMatchObject({
      raw: update,
      error: { code: "HERALD_RECEIVE_ATTEMPTS_EXHAUSTED" },
    });
    expect(await bench.runtime.recover()).toMatchObject({ redispatched: 0, deadLettered: 0 });

    broken = false;
    expect((await bench.runtime.deadLetters.replay(letter?.id ?? "")).status).toBe("processed");
    expect(bench.processed.map((p) => p.text)).toEqual(["poison"]);
    expect(await bench.runtime.deadLetters.list()).toEqual([]);
  });
});

describe("crash after the record (SIGKILL)", () => {
  const child = fileURLToPath(new URL("./testing/webhookChild.ts", import.meta.url));
  let dir = "";
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const setup = () => {
    dir = mkdtempSync(join(tmpdir(), "herald-recover-"));
    const log = join(dir, "processed.log");
    writeFileSync(log, "");
    const run = (failpoints: string, ...args: string[]) =>
      spawnSync(process.execPath, [child, join(dir, "state.db"), log, ...args], {
        env: { ...process.env, HERALD_FAILPOINTS: failpoints },
        encoding: "utf8",
        timeout: scaledMs(20_000),
      });
    const processed = () => readFileSync(log, "utf8").split("\n").filter(Boolean);
    return { run, processed };
  };

  it("processes an acknowledged message exactly once after the process died in the handler", () => {
    const { run, processed } = setup();
    const crashed = run("test.handler_mid=kill", "serve", "7001");
    expect(crashed.signal).toBe("SIGKILL");
    expect(crashed.stdout).toBe("acked\n"); // the platform was told "accepted": it will not redeliver
    expect(processed()).toEqual([]);

    const recovered = run("", "recover");
    expect(recovered.status).toBe(0);
    expect(JSON.parse(recovered.stdout)).toMatchObject({ redispatched: 1, processed: 1 });
    expect(processed()).toEqual(["7001"]);

    expect(JSON.parse(run("", "recover").stdout)).toMatchObject({ redispatched: 0 });
    expect(processed()).toEqual(["7001"]);
  });

  it("processes a message killed at receive.after_record once, whether redelivered or recovered", () => {
    const { run, processed } = setup();
    const crashed = run("receive.after_record=kill", "serve", "7002");
    expect(crashed.signal).toBe("SIGKILL");
    expect(crashed.stdout).toBe(""); // not answered: the platform redelivers
    const redelivered = run("", "serve", "7002");
    expect(redelivered.status).toBe(0);
    expect(JSON.parse(run("", "recover").stdout)).toMatchObject({ redispatched: 0 });
    expect(processed()).toEqual(["7002"]);
  });
});
