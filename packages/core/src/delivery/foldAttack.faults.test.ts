/**
 * [H19] attacks on the folded first attempt — faults: the folded commit fails (the file locked by
 * another connection), the folded platform call fails in each way (idempotent and reconcile
 * adapters), and `onDurable` throws (folded and three-step sends). On the SQLite store in-thread
 * and in its worker thread (real files).
 */
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import type { MessageRuntime } from "../runtime.ts";
import { StoreUnavailableError } from "../state/errors.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { scaledMs } from "../testing/timeScale.ts";
import { foldRuntime, STORE_THREADS, tempDbFiles } from "./testing/foldRuntime.ts";

const db = tempDbFiles("herald-foldattack-faults-");
afterAll(db.remove);

/** Sends "first" to chat c1 with an `onDurable` that throws: the caller gets that error. */
async function sendWithThrowingOnDurable(runtime: MessageRuntime): Promise<void> {
  const boom = new Error("ack failed");
  await expect(
    runtime.send(outboundMessage("first", { target: { id: "c1" } }), {
      onDurable: () => {
        throw boom;
      },
    }),
  ).rejects.toBe(boom);
}

for (const kind of STORE_THREADS) {
  describe(`folded first attempt under attack (${kind} thread store)`, () => {
    it("the folded commit fails (the file locked by another process): a typed error, nothing recorded, token and slot given back", async () => {
      const path = db.file("busy");
      const { runtime, store, platform, close } = await foldRuntime({
        thread: kind,
        path,
        busyTimeoutMs: 150,
        adapter: { rateLimits: [{ scope: "account", limit: 1, intervalMs: 60_000 }] },
        delivery: { concurrency: 1 },
      });
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
        await close();
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
          const { runtime, store, close } = await foldRuntime({
            thread: kind,
            path: db.file("fail"),
            platform,
            idempotent: mode === "idempotent",
            adapter: { reconcile: mode === "reconcile", requestTimeoutMs: 50 },
            delivery: { backoff: { baseMs: 10, maxMs: 40, maxAttempts: 20 } },
          });
          try {
            const r = await runtime.send(outboundMessage("m", { target: { id: "c1" } }), {
              waitMs: 5_000,
            });
            expect(r.platformMessageIds).toHaveLength(1);
            await new Promise((res) => setTimeout(res, 60));
            expect(platform.visible().map((m) => m.text)).toEqual(["m"]);
            expect(await store.listIntents()).toMatchObject([{ status: "sent" }]);
          } finally {
            await close();
          }
        });
      }
    }

    it(
      "onDurable throws on a folded send: the caller gets the error, the slot is not stranded, the message is delivered once",
      async () => {
        const { runtime, store, platform, close } = await foldRuntime({
          thread: kind,
          path: db.file("ondurable"),
          delivery: { concurrency: 1 },
        });
        try {
          await sendWithThrowingOnDurable(runtime);
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
          await close();
        }
      },
      scaledMs(10_000),
    );

    it(
      "onDurable throws on a three-step send: the leased intent is delivered now, not after its lease",
      async () => {
        const { runtime, store, platform, close } = await foldRuntime({
          thread: kind,
          path: db.file("ondurable3"),
          // No key: never folded. A poll a minute away and a long lease: only an inline delivery
          // gets it out within the test.
          idempotent: false,
          delivery: { pollIntervalMs: 60_000, leaseMs: 60_000, concurrency: 1 },
        });
        try {
          await sendWithThrowingOnDurable(runtime);
          for (let i = 0; i < 100 && platform.visible().length === 0; i++)
            await new Promise((r) => setTimeout(r, 20));
          expect(platform.visible().map((m) => m.text)).toEqual(["first"]);
          for (let i = 0; i < 100; i++) {
            if ((await store.listIntents()).every((x) => x.status === "sent")) break;
            await new Promise((r) => setTimeout(r, 20));
          }
          expect((await store.listIntents()).map((x) => x.status)).toEqual(["sent"]);
        } finally {
          await close();
        }
      },
      scaledMs(10_000),
    );
  });
}
