/**
 * [H19] attacks on the folded first attempt — stop(): a send after stop() and a stop() while the
 * folded platform call is in flight; the next process on the same file delivers exactly once. On
 * the SQLite store in-thread and in its worker thread (real files).
 */
import { afterAll, describe, expect, it } from "vitest";
import { type FakeTransport, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { foldRuntime, STORE_THREADS, tempDbFiles } from "./testing/foldRuntime.ts";

const db = tempDbFiles("herald-foldattack-stop-");
afterAll(db.remove);

for (const kind of STORE_THREADS) {
  describe(`folded first attempt under attack (${kind} thread store)`, () => {
    it("a send after stop(): nothing half-recorded, delivered once by the next process", async () => {
      const path = db.file("after-stop");
      const delivery = { leaseMs: 300 };
      const { runtime, store, platform } = await foldRuntime({ thread: kind, path, delivery });
      await runtime.stop(100);
      const outcome = await runtime
        .send(outboundMessage("late", { target: { id: "c1" } }), { waitMs: 300 })
        .then(
          () => "receipt",
          (e: unknown) => (e as Error).name,
        );
      const rows = await store.listIntents().catch(() => []);
      await store.close();
      const next = await foldRuntime({ thread: kind, path, platform, delivery });
      const again = next.store;
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
        await next.close();
      }
    });

    it("stop() while the folded call is in flight: after a restart sent exactly once", async () => {
      const platform = new FakePlatform({ idempotent: true });
      const path = db.file("stop");
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
      const delivery = { leaseMs: 300 };
      const { runtime, store } = await foldRuntime({
        thread: kind,
        path,
        platform,
        transport: slow,
        delivery,
      });
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
      const next = await foldRuntime({ thread: kind, path, platform, transport: inner, delivery });
      const again = next.store;
      try {
        for (let i = 0; i < 200; i++) {
          const [row] = await again.listIntents();
          if (row?.status === "sent") break;
          await new Promise((r) => setTimeout(r, 20));
        }
        expect(await again.listIntents()).toMatchObject([{ status: "sent" }]);
        expect(platform.visible().map((m) => m.text)).toEqual(["m"]);
      } finally {
        await next.close();
      }
    });
  });
}
