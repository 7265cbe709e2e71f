/**
 * [H28] C50: an inbound message that failed before its handler ran — the store's disk was full,
 * so neither the dedupe lease nor the record could be written — is retried by the running
 * runtime with backoff, handled once when space returns, and listed while it waits.
 */
import { afterEach, describe, expect, it } from "vitest";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { fullDisk } from "../testing/failingWrites.ts";
import { createFakeTelegramAdapter, teleUpdate } from "./testing/fakeTelegram.ts";
import { receiveBench } from "./testing/harness.ts";

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe("inbound that failed before its handler ran (C50)", () => {
  it("is retried with backoff while the disk is full, and handled once when space returns", async () => {
    const inner = new SqliteStateStore({ path: ":memory:" });
    const disk = fullDisk(inner);
    const bench = receiveBench([createFakeTelegramAdapter()], {
      store: disk.store,
      retry: { baseMs: 5, maxMs: 20 },
    });
    close = async () => {
      bench.runtime.stopRetries();
      await bench.runtime.drain();
      await inner.close();
    };
    disk.full = true;
    const ticket = bench.runtime.receive(teleUpdate(7), { channel: "telegram", accountId: "bot" });
    expect((await ticket.ack).kind).toBe("retry");
    expect(await ticket.done).toMatchObject({ status: "failed", recorded: false });
    // Waiting, listed with what failed; retried again and again while the disk stays full.
    const [pending] = bench.runtime.pendingRetries();
    expect(pending).toMatchObject({ channel: "telegram", accountId: "bot", recorded: false });
    expect(pending?.lastError).toContain("database or disk is full");
    await expect.poll(() => bench.runtime.pendingRetries()[0]?.attempts ?? 0).toBeGreaterThan(2);
    expect(bench.processed).toEqual([]);

    disk.full = false;
    await expect.poll(() => bench.processedIds().length).toBe(1);
    await expect.poll(() => bench.runtime.pendingRetries()).toEqual([]);
    // Once: a redelivery by the platform is a duplicate.
    const again = bench.runtime.receive(teleUpdate(7), { channel: "telegram", accountId: "bot" });
    expect((await again.done).status).toBe("duplicate");
    expect(bench.processed).toHaveLength(1);
  });

  it("does not retry a message whose handler ran and failed (recovery and redelivery own it)", async () => {
    const bench = receiveBench([createFakeTelegramAdapter()], {
      retry: { baseMs: 5, maxMs: 20 },
      handler: () => {
        throw new Error("the bot's handler failed");
      },
    });
    close = async () => {
      bench.runtime.stopRetries();
      await bench.runtime.drain();
      await bench.store.close();
    };
    const ticket = bench.runtime.receive(teleUpdate(8), { channel: "telegram", accountId: "bot" });
    expect((await ticket.done).status).toBe("failed");
    expect(bench.runtime.pendingRetries()).toEqual([]);
  });
});
