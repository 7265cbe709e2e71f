/**
 * Crash recovery picks the intent's own account adapter (DESIGN §3 "Accounts"; issue H14): a
 * `sending` intent left by a dead worker is scheduled with the settle delay of the adapter of
 * its account, not of whatever adapter the channel alone finds (none, with two accounts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { bulkInsertSqliteIntents } from "../testing/bulkIntents.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { eventually } from "./testing/harness.ts";

let runtime: MessageRuntime | undefined;
let store: SqliteStateStore | undefined;
afterEach(async () => {
  await runtime?.stop(500).catch(() => {});
  await store?.close().catch(() => {});
});

describe("recovery of a crashed send with two accounts of one channel", () => {
  it("waits the settle delay of the intent's account before reconciling", async () => {
    let now = 1_000_000;
    const clock = () => now;
    const SETTLE_MS = 60_000;
    const pa = new FakePlatform({ clock });
    const pb = new FakePlatform({ clock });
    store = new SqliteStateStore({ path: ":memory:", clock });
    runtime = createMessageRuntime({
      store,
      adapters: [
        {
          adapter: createFakeAdapter({ transport: inProcessTransport(pa), requestTimeoutMs: 0 }),
          accountId: "A",
        },
        {
          adapter: createFakeAdapter({
            transport: inProcessTransport(pb),
            reconcile: true,
            requestTimeoutMs: SETTLE_MS,
          }),
          accountId: "B",
        },
      ],
      clock,
      random: () => 0.5,
      delivery: { pollIntervalMs: 5, backoff: { baseMs: 10, maxMs: 20 } },
    });
    const [r] = await store.enqueueIntents([
      { idempotencyKey: "left", message: outboundMessage("left behind", { accountId: "B" }) },
    ]);
    const id = r?.intent.id ?? "";
    await store.leaseDueIntents({ owner: "dead:1", now, leaseMs: 1_000, limit: 1 });
    await store.transitionIntents([{ id, from: "pending", to: "sending", owner: "dead:1" }]);
    now += 1_000;
    const report = await runtime.worker.recover();
    expect(report.toUnknown).toBe(1);
    const intent = await store.getIntent(id);
    expect(intent?.status).toBe("unknown_after_send");
    // Not looked up (nor replayed) before B's own settle delay has passed.
    expect(intent?.nextAttemptAt ?? 0).toBeGreaterThanOrEqual(now + SETTLE_MS);
    expect(pb.calls).toEqual([]);
  });
});

describe("recovery of what an earlier incarnation of this worker left leased", () => {
  it("releases an unknown_after_send intent's lease at once: it is reconciled and sent, and its chat moves on", async () => {
    const platform = new FakePlatform();
    store = new SqliteStateStore({ path: ":memory:" });
    // The dead process (same workerId, another boot) leased an in-doubt send for its reconcile
    // check, an hour of lease left; a later message of the same chat waits behind it.
    const [doubt, next] = await store.enqueueIntents([
      { idempotencyKey: "doubt", message: outboundMessage("in doubt") },
      { idempotencyKey: "next", message: outboundMessage("next") },
    ]);
    const owner = "bench:dead0001";
    const now = Date.now();
    const [leased] = await store.leaseDueIntents({ owner, now, leaseMs: 3_600_000, limit: 1 });
    expect(leased?.id).toBe(doubt?.intent.id);
    const id = leased?.id as string;
    await store.transitionIntents([
      { id, owner, from: "pending", to: "sending", patch: { attempt: 1 } },
    ]);
    await store.transitionIntents([
      {
        id,
        owner,
        from: "sending",
        to: "unknown_after_send",
        patch: {
          failure: { kind: "unknown", evidence: "maybe_sent", message: "reset", at: now },
          nextAttemptAt: now,
        },
      },
    ]);
    expect((await store.getIntent(id))?.leaseOwner).toBe(owner);
    runtime = createMessageRuntime({
      store,
      adapters: [createFakeAdapter({ transport: inProcessTransport(platform), reconcile: true })],
      delivery: { workerId: "bench", pollIntervalMs: 5, backoff: { baseMs: 10, maxMs: 20 } },
    });
    const report = await runtime.start();
    expect(report.released).toBe(1);
    // Before: both waited out the dead process's lease (an hour: the test would time out; no
    // assertion on elapsed time).
    await eventually(
      () => platform.visible("chat-1").length,
      (n) => n >= 2,
    );
    expect(platform.visible("chat-1").map((m) => m.text)).toEqual(["in doubt", "next"]);
    // The platform shows a message before its `sent` row is written: wait for the row.
    const status = async () => (await store?.getIntent(next?.intent.id as string))?.status;
    for (let i = 0; i < 100 && (await status()) !== "sent"; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(await status()).toBe("sent");
  });
});

describe("C53 · startup recovery in bounded passes", () => {
  it("C53 start() runs one page, the loop serves due messages and continues the pass until every old lease is released", async () => {
    const dir = mkdtempSync(join(tmpdir(), "herald-recovery-"));
    try {
      const path = join(dir, "store.db");
      await new SqliteStateStore({ path }).close();
      // 600 intents an earlier incarnation leased for an hour (beyond one 200-row page), and
      // 50 due ones nobody holds.
      bulkInsertSqliteIntents(path, {
        count: 600,
        prefix: "old",
        chats: 600,
        leaseOwner: "bench:dead0001",
        leaseExpiresAt: Date.now() + 3_600_000,
      });
      bulkInsertSqliteIntents(path, { count: 50, prefix: "due", chats: 50 });
      const platform = new FakePlatform();
      store = new SqliteStateStore({ path });
      runtime = createMessageRuntime({
        store,
        adapters: [createFakeAdapter({ transport: inProcessTransport(platform) })],
        delivery: { workerId: "bench", pollIntervalMs: 5, recoveryRowsPerPass: 100 },
      });
      const report = await runtime.start();
      expect(report).toMatchObject({ released: 200, rowsRead: 200, complete: false });
      await eventually(
        () => platform.visible().length,
        (n) => n === 650,
        20_000,
      );
      // The platform shows a message before its `sent` row is written: wait for the rows.
      const open = async () => {
        const c = (await store?.countIntents()) ?? { pending: 1, sending: 0, committing: 0 };
        return c.pending + c.sending + c.committing;
      };
      expect(await eventually(open, (n) => n === 0)).toBe(0);
      expect((await store.countIntents()).sent).toBe(650);
    } finally {
      await runtime?.stop(500).catch(() => {});
      runtime = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
