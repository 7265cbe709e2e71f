/**
 * [H19] attacks on the folded first attempt: existing keys in every state, stop() mid-call,
 * same-chat races, on the SQLite store in-thread and in its worker thread (real files).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { createMessageRuntime } from "../runtime.ts";
import { StoreUnavailableError } from "../state/errors.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { openSqliteStateStore } from "../state/sqlite/worker/SqliteWorkerStore.ts";
import {
  createFakeAdapter,
  type FakeTransport,
  inProcessTransport,
} from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { DeliveryFailedError, DeliveryPendingError, IdempotencyConflictError } from "./errors.ts";

const dir = mkdtempSync(join(tmpdir(), "herald-foldattack-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

const open = (
  kind: "main" | "worker",
  path: string,
  busyTimeoutMs?: number,
): Promise<MessageStateStore> => {
  const options = { path, ...(busyTimeoutMs ? { busyTimeoutMs } : {}) };
  return kind === "worker"
    ? openSqliteStateStore(options)
    : Promise.resolve(new SqliteStateStore(options));
};

for (const kind of ["main", "worker"] as const) {
  describe(`folded first attempt under attack (${kind} thread store)`, () => {
    it("a key that exists sent / failed: no platform call, the token given back", async () => {
      const platform = new FakePlatform({ idempotent: true });
      const path = join(dir, `k-${++files}.db`);
      const store = await open(kind, path);
      const runtime = createMessageRuntime({
        store,
        adapters: [
          createFakeAdapter({
            transport: inProcessTransport(platform),
            idempotent: true,
            rateLimits: [{ scope: "account", limit: 1, intervalMs: 60_000 }],
          }),
        ],
        delivery: { pollIntervalMs: 5 },
      });
      const claim = { owner: "old", now: Date.now(), leaseMs: 60_000 };
      const [sentRow, failedRow] = await store.enqueueIntents([
        { idempotencyKey: "s", message: outboundMessage("s", { target: { id: "c1" } }), claim },
        { idempotencyKey: "f", message: outboundMessage("f", { target: { id: "c2" } }), claim },
      ]);
      expect(failedRow?.intent.leaseOwner).toBe("old");
      for (const [from, to] of [
        ["pending", "sending"],
        ["sending", "committing"],
      ] as const) {
        await store.transitionIntents([
          { id: sentRow?.intent.id as string, from, to, owner: "old", patch: {} },
        ] as never);
      }
      await store.transitionIntents([
        {
          id: sentRow?.intent.id as string,
          from: "committing",
          to: "sent",
          owner: "old",
          patch: { receipt: { platformMessageIds: ["x"], parts: [], sentAt: 1 } },
        },
        {
          id: failedRow?.intent.id as string,
          from: "pending",
          to: "failed",
          owner: "old",
          patch: {
            failure: { kind: "invalid_payload", evidence: "not_dispatched", message: "no", at: 1 },
          },
        },
      ] as never);
      await runtime.start();
      try {
        const r = await runtime.send(outboundMessage("s", { target: { id: "c1" } }), {
          idempotencyKey: "s",
        });
        expect(r.platformMessageIds).toEqual(["x"]);
        await expect(
          runtime.send(outboundMessage("f", { target: { id: "c2" } }), { idempotencyKey: "f" }),
        ).rejects.toBeInstanceOf(DeliveryFailedError);
        // The same key for other text: refused, nothing sent; `slot` matching returns the receipt.
        await expect(
          runtime.send(outboundMessage("other text", { target: { id: "c1" } }), {
            idempotencyKey: "s",
          }),
        ).rejects.toBeInstanceOf(IdempotencyConflictError);
        const slot = await runtime.send(outboundMessage("other text", { target: { id: "c1" } }), {
          idempotencyKey: "s",
          keyMatch: "slot",
        });
        expect(slot.platformMessageIds).toEqual(["x"]);
        expect(platform.visible()).toEqual([]);
        // Every fold took the one token of the minute and gave it back.
        const other = await runtime.send(outboundMessage("o", { target: { id: "c3" } }), {
          waitMs: 1_000,
        });
        expect(other.platformMessageIds).toHaveLength(1);
        expect((await store.listIntents()).map((i) => i.status).sort()).toEqual([
          "failed",
          "sent",
          "sent",
        ]);
      } finally {
        await runtime.stop(200);
        await store.close();
      }
    });

    it("a pending intent of the chat and of the key from a previous process: delivered once, in order", async () => {
      const platform = new FakePlatform({ idempotent: true });
      const path = join(dir, `p-${++files}.db`);
      const store = await open(kind, path);
      await store.enqueueIntents([
        { idempotencyKey: "a", message: outboundMessage("a", { target: { id: "c1" } }) },
        { idempotencyKey: "b", message: outboundMessage("b", { target: { id: "c1" } }) },
      ]);
      const runtime = createMessageRuntime({
        store,
        adapters: [
          createFakeAdapter({ transport: inProcessTransport(platform), idempotent: true }),
        ],
        delivery: { pollIntervalMs: 5 },
      });
      await runtime.start();
      try {
        const [b, c, d] = await Promise.all([
          runtime.send(outboundMessage("b", { target: { id: "c1" } }), { idempotencyKey: "b" }),
          runtime.send(outboundMessage("c", { target: { id: "c1" } }), { idempotencyKey: "c" }),
          runtime.send(outboundMessage("d", { target: { id: "c1" } }), { idempotencyKey: "d" }),
        ]);
        expect(b.platformMessageIds).toHaveLength(1);
        expect(c.platformMessageIds).toHaveLength(1);
        expect(d.platformMessageIds).toHaveLength(1);
        expect(platform.visible().map((m) => m.text)).toEqual(["a", "b", "c", "d"]);
      } finally {
        await runtime.stop(200);
        await store.close();
      }
    });

    it("the folded commit fails (the file locked by another process): a typed error, nothing recorded, token and slot given back", async () => {
      const platform = new FakePlatform({ idempotent: true });
      const path = join(dir, `busy-${++files}.db`);
      const store = await open(kind, path, 150);
      const runtime = createMessageRuntime({
        store,
        adapters: [
          createFakeAdapter({
            transport: inProcessTransport(platform),
            idempotent: true,
            rateLimits: [{ scope: "account", limit: 1, intervalMs: 60_000 }],
          }),
        ],
        delivery: { pollIntervalMs: 5, concurrency: 1 },
      });
      await runtime.start();
      const other = new DatabaseSync(path);
      try {
        other.exec("BEGIN IMMEDIATE");
        await expect(
          runtime.send(outboundMessage("lost", { target: { id: "c1" } })),
        ).rejects.toBeInstanceOf(StoreUnavailableError);
        other.exec("ROLLBACK");
        expect(await store.listIntents()).toEqual([]);
        const r = await runtime.send(outboundMessage("next", { target: { id: "c1" } }), {
          waitMs: 1_000,
        });
        expect(r.platformMessageIds).toHaveLength(1);
        expect(platform.visible().map((m) => m.text)).toEqual(["next"]);
        expect(await store.listIntents()).toMatchObject([{ status: "sent", attempt: 1 }]);
      } finally {
        other.close();
        await runtime.stop(200);
        await store.close();
      }
    });

    for (const mode of ["idempotent", "reconcile"] as const) {
      for (const fault of [
        { type: "refuse" },
        { type: "accept-then-drop" },
        { type: "store-late", delayMs: 30 },
        { type: "status", status: 500 },
      ] as const) {
        it(`${mode}: the folded call fails (${fault.type}): delivered exactly once, one intent`, async () => {
          const platform = new FakePlatform({ idempotent: mode === "idempotent" });
          platform.failNext(fault, 1, "send");
          const path = join(dir, `fail-${++files}.db`);
          const store = await open(kind, path);
          const runtime = createMessageRuntime({
            store,
            adapters: [
              createFakeAdapter({
                transport: inProcessTransport(platform),
                idempotent: mode === "idempotent",
                reconcile: mode === "reconcile",
                requestTimeoutMs: 50,
              }),
            ],
            delivery: { pollIntervalMs: 5, backoff: { baseMs: 10, maxMs: 40, maxAttempts: 20 } },
          });
          await runtime.start();
          try {
            const r = await runtime.send(outboundMessage("m", { target: { id: "c1" } }), {
              waitMs: 5_000,
            });
            expect(r.platformMessageIds).toHaveLength(1);
            await new Promise((res) => setTimeout(res, 60));
            expect(platform.visible().map((m) => m.text)).toEqual(["m"]);
            expect(await store.listIntents()).toMatchObject([{ status: "sent" }]);
          } finally {
            await runtime.stop(200);
            await store.close();
          }
        });
      }
    }

    it("a send after stop(): nothing half-recorded, delivered once by the next process", async () => {
      const platform = new FakePlatform({ idempotent: true });
      const path = join(dir, `after-stop-${++files}.db`);
      const store = await open(kind, path);
      const make = (s: MessageStateStore) =>
        createMessageRuntime({
          store: s,
          adapters: [
            createFakeAdapter({ transport: inProcessTransport(platform), idempotent: true }),
          ],
          delivery: { pollIntervalMs: 5, leaseMs: 300 },
        });
      const runtime = make(store);
      await runtime.start();
      await runtime.stop(100);
      const outcome = await runtime
        .send(outboundMessage("late", { target: { id: "c1" } }), { waitMs: 300 })
        .then(
          () => "receipt",
          (e: unknown) => (e as Error).name,
        );
      const rows = await store.listIntents().catch(() => []);
      await store.close();
      const again = await open(kind, path);
      const second = make(again);
      await second.start();
      try {
        for (let i = 0; i < 100 && rows.length > 0; i++) {
          const [row] = await again.listIntents();
          if (row?.status === "sent") break;
          await new Promise((r) => setTimeout(r, 20));
        }
        const after = await again.listIntents();
        const visible = platform.visible().map((m) => m.text);
        // Either refused outright (nothing written, nothing sent) or written and delivered once.
        if (after.length === 0) expect(visible).toEqual([]);
        else {
          expect(after).toMatchObject([{ status: "sent" }]);
          expect(visible).toEqual(["late"]);
        }
        expect({ outcome, statusAtStop: rows[0]?.status }).not.toEqual({
          outcome: "receipt",
          statusAtStop: undefined,
        });
      } finally {
        await second.stop(200);
        await again.close();
      }
    });

    it("onDurable throws on a folded send: the caller gets the error, the slot is not stranded, the message is delivered once", async () => {
      const platform = new FakePlatform({ idempotent: true });
      const path = join(dir, `ondurable-${++files}.db`);
      const store = await open(kind, path);
      const runtime = createMessageRuntime({
        store,
        adapters: [
          createFakeAdapter({ transport: inProcessTransport(platform), idempotent: true }),
        ],
        delivery: { pollIntervalMs: 5, concurrency: 1 },
      });
      await runtime.start();
      try {
        const boom = new Error("ack failed");
        await expect(
          runtime.send(outboundMessage("first", { target: { id: "c1" } }), {
            onDurable: () => {
              throw boom;
            },
          }),
        ).rejects.toBe(boom);
        // With one delivery slot, a stranded slot would leave every later send pending.
        const next = await runtime.send(outboundMessage("next", { target: { id: "c2" } }), {
          waitMs: 2_000,
        });
        expect(next.platformMessageIds).toHaveLength(1);
        for (let i = 0; i < 100; i++) {
          if ((await store.listIntents()).every((x) => x.status === "sent")) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        expect((await store.listIntents()).map((x) => x.status)).toEqual(["sent", "sent"]);
        expect(
          platform
            .visible()
            .map((m) => m.text)
            .sort(),
        ).toEqual(["first", "next"]);
      } finally {
        await runtime.stop(200);
        await store.close();
      }
    }, 10_000);

    it("onDurable throws on a three-step send: the leased intent is delivered now, not after its lease", async () => {
      const platform = new FakePlatform();
      const path = join(dir, `ondurable3-${++files}.db`);
      const store = await open(kind, path);
      const runtime = createMessageRuntime({
        store,
        // No key: never folded. A poll a minute away and a long lease: only an inline delivery
        // gets it out within the test.
        adapters: [createFakeAdapter({ transport: inProcessTransport(platform) })],
        delivery: { pollIntervalMs: 60_000, leaseMs: 60_000, concurrency: 1 },
      });
      await runtime.start();
      try {
        const boom = new Error("ack failed");
        await expect(
          runtime.send(outboundMessage("first", { target: { id: "c1" } }), {
            onDurable: () => {
              throw boom;
            },
          }),
        ).rejects.toBe(boom);
        for (let i = 0; i < 100 && platform.visible().length === 0; i++)
          await new Promise((r) => setTimeout(r, 20));
        expect(platform.visible().map((m) => m.text)).toEqual(["first"]);
        for (let i = 0; i < 100; i++) {
          if ((await store.listIntents()).every((x) => x.status === "sent")) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        expect((await store.listIntents()).map((x) => x.status)).toEqual(["sent"]);
      } finally {
        await runtime.stop(200);
        await store.close();
      }
    }, 10_000);

    it("rate limit of two a minute: two folded sends count one token each, the third waits", async () => {
      const platform = new FakePlatform({ idempotent: true });
      const path = join(dir, `tokens-${++files}.db`);
      const store = await open(kind, path);
      const runtime = createMessageRuntime({
        store,
        adapters: [
          createFakeAdapter({
            transport: inProcessTransport(platform),
            idempotent: true,
            rateLimits: [{ scope: "account", limit: 2, intervalMs: 60_000 }],
          }),
        ],
        delivery: { pollIntervalMs: 5 },
      });
      await runtime.start();
      try {
        await runtime.send(outboundMessage("a", { target: { id: "c1" } }), { waitMs: 1_000 });
        await runtime.send(outboundMessage("b", { target: { id: "c2" } }), { waitMs: 1_000 });
        await expect(
          runtime.send(outboundMessage("c", { target: { id: "c3" } }), { waitMs: 200 }),
        ).rejects.toBeInstanceOf(DeliveryPendingError);
        expect(platform.visible().map((m) => m.text)).toEqual(["a", "b"]);
        expect((await store.listIntents()).map((x) => [x.status, x.attempt])).toEqual([
          ["sent", 1],
          ["sent", 1],
          ["pending", 0],
        ]);
      } finally {
        await runtime.stop(200);
        await store.close();
      }
    });

    it("two processes on one file send to one chat at once: one intent each, every message once, each process's own order kept", async () => {
      const platform = new FakePlatform({ idempotent: true });
      const path = join(dir, `two-${++files}.db`);
      const stores = [await open(kind, path), await open(kind, path)];
      const runtimes = stores.map((s, n) =>
        createMessageRuntime({
          store: s,
          adapters: [
            createFakeAdapter({ transport: inProcessTransport(platform), idempotent: true }),
          ],
          delivery: { pollIntervalMs: 5, workerId: `p${n}` },
        }),
      );
      for (const r of runtimes) await r.start();
      try {
        const sends = runtimes.flatMap((r, n) =>
          Array.from({ length: 4 }, (_, i) =>
            r.send(outboundMessage(`p${n}-${i}`, { target: { id: "c1" } }), {
              idempotencyKey: `k-${i % 2}-${n}-${i}`,
              waitMs: 5_000,
            }),
          ),
        );
        // The same key from both processes at once: one intent, one message.
        sends.push(
          ...runtimes.map((r) =>
            r.send(outboundMessage("shared", { target: { id: "c1" } }), {
              idempotencyKey: "shared",
              waitMs: 5_000,
            }),
          ),
        );
        const receipts = await Promise.all(sends);
        expect(receipts.at(-1)).toEqual(receipts.at(-2));
        const rows = await stores[0]?.listIntents();
        expect(rows).toHaveLength(9);
        expect(rows?.every((x) => x.status === "sent")).toBe(true);
        const visible = platform.visible().map((m) => m.text);
        expect([...visible].sort()).toEqual(
          [...(rows ?? [])].map((x) => x.message.body?.markdown).sort(),
        );
        // The chat saw them in enqueue order.
        const bySeq = [...(rows ?? [])].sort((a, b) => a.seq - b.seq);
        expect(visible).toEqual(bySeq.map((x) => x.message.body?.markdown));
      } finally {
        for (const r of runtimes) await r.stop(200);
        for (const s of stores) await s.close();
      }
    });

    it("stop() while the folded call is in flight: after a restart sent exactly once", async () => {
      const platform = new FakePlatform({ idempotent: true });
      const path = join(dir, `stop-${++files}.db`);
      let release!: () => void;
      const gate = new Promise<void>((r) => {
        release = r;
      });
      let called!: () => void;
      const reached = new Promise<void>((r) => {
        called = r;
      });
      const inner = inProcessTransport(platform);
      const slow: FakeTransport = async (call) => {
        called();
        await gate;
        return inner(call);
      };
      const store = await open(kind, path);
      const runtime = createMessageRuntime({
        store,
        adapters: [createFakeAdapter({ transport: slow, idempotent: true })],
        delivery: { pollIntervalMs: 5, leaseMs: 300 },
      });
      await runtime.start();
      const sent = runtime
        .send(outboundMessage("m", { target: { id: "c1" } }), { waitMs: 2_000 })
        .catch((e: unknown) => e);
      await reached;
      const stopping = runtime.stop(50);
      setTimeout(release, 100);
      await stopping.catch(() => {});
      await sent;
      await new Promise((r) => setTimeout(r, 400));
      await store.close();
      const again = await open(kind, path);
      const second = createMessageRuntime({
        store: again,
        adapters: [createFakeAdapter({ transport: inner, idempotent: true })],
        delivery: { pollIntervalMs: 5, leaseMs: 300 },
      });
      await second.start();
      try {
        for (let i = 0; i < 200; i++) {
          const [row] = await again.listIntents();
          if (row?.status === "sent") break;
          await new Promise((r) => setTimeout(r, 20));
        }
        expect(await again.listIntents()).toMatchObject([{ status: "sent" }]);
        expect(platform.visible().map((m) => m.text)).toEqual(["m"]);
      } finally {
        await second.stop(200);
        await again.close();
      }
    });
  });
}
