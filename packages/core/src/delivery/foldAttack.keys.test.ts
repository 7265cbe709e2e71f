/**
 * [H19] attacks on the folded first attempt — keys and tokens: a key that already exists (sent,
 * failed, pending from a previous process), two processes on one file racing for one chat and one
 * key, and how folded sends count rate-limit tokens. On the SQLite store in-thread and in its
 * worker thread (real files).
 */
import { afterAll, describe, expect, it } from "vitest";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { DeliveryFailedError, DeliveryPendingError, IdempotencyConflictError } from "./errors.ts";
import { foldRuntime, STORE_THREADS, tempDbFiles } from "./testing/foldRuntime.ts";

const db = tempDbFiles("herald-foldattack-keys-");
afterAll(db.remove);

for (const kind of STORE_THREADS) {
  describe(`folded first attempt under attack (${kind} thread store)`, () => {
    it("a key that exists sent / failed: no platform call, the token given back", async () => {
      // The previous process wrote these rows two minutes ago: outside the minute's window, so
      // the restart seed (`delivery/ratelimit/seed.ts`) counts no token for its send.
      const path = db.file("k");
      const ago = Date.now() - 120_000;
      const store = new SqliteStateStore({ path, clock: () => ago });
      const claim = { owner: "old", now: ago, leaseMs: 60_000 };
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
      await store.close();
      const {
        runtime,
        store: reopened,
        platform,
        close,
      } = await foldRuntime({
        thread: kind,
        path,
        adapter: { rateLimits: [{ scope: "account", limit: 1, intervalMs: 60_000 }] },
      });
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
        expect((await reopened.listIntents()).map((i) => i.status).sort()).toEqual([
          "failed",
          "sent",
          "sent",
        ]);
      } finally {
        await close();
      }
    });

    it("a pending intent of the chat and of the key from a previous process: delivered once, in order", async () => {
      const { runtime, platform, close } = await foldRuntime({
        thread: kind,
        path: db.file("p"),
        seed: (store) =>
          store.enqueueIntents([
            { idempotencyKey: "a", message: outboundMessage("a", { target: { id: "c1" } }) },
            { idempotencyKey: "b", message: outboundMessage("b", { target: { id: "c1" } }) },
          ]),
      });
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
        await close();
      }
    });

    it("rate limit of two a minute: two folded sends count one token each, the third waits", async () => {
      const { runtime, store, platform, close } = await foldRuntime({
        thread: kind,
        path: db.file("tokens"),
        adapter: { rateLimits: [{ scope: "account", limit: 2, intervalMs: 60_000 }] },
      });
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
        await close();
      }
    });

    it("two processes on one file send to one chat at once: one intent each, every message once, each process's own order kept", async () => {
      const path = db.file("two");
      const first = await foldRuntime({
        thread: kind,
        path,
        delivery: { workerId: "p0" },
        start: false,
      });
      const second = await foldRuntime({
        thread: kind,
        path,
        platform: first.platform,
        delivery: { workerId: "p1" },
        start: false,
      });
      const processes = [first, second];
      const runtimes = processes.map((p) => p.runtime);
      const stores = processes.map((p) => p.store);
      const platform = first.platform;
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
  });
}
