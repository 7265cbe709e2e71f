/**
 * `runtime.send` on PostgreSQL sees what another process does to the intents it waits on (the
 * delivery worker's settle poll, `MessageStateStore.getIntentStatuses`), and ends its waits
 * promptly when its store closes.
 */
import { createMessageRuntime, HELD_FOR_OPERATOR_AT } from "@herald/core";
import {
  createFakeAdapter,
  FakePlatform,
  inProcessTransport,
  outboundMessage,
  scaledMs,
} from "@herald/core/testing";
import { afterAll, describe, expect, it } from "vitest";
import {
  postgresAvailable,
  requirePostgresOrSkip,
  throwawaySchemas,
} from "./testing/postgresTest.ts";

const available = requirePostgresOrSkip(await postgresAvailable());
const env = throwawaySchemas();
afterAll(() => env.dispose());

describe.skipIf(!available)("the settle poll on PostgreSQL", () => {
  it(
    "1,100 waiting sends see another process's cancel and hold, and fail typed within seconds when the store closes (three failed polls)",
    async () => {
      // Two stores on one schema: two processes. Waits and the pool's connection timeout are an
      // hour: what ends a wait is what the poll saw or the close, never a timer, so no
      // assertion here is on elapsed time (a regression times the test out).
      const schema = env.schema();
      const [mine, other] = [
        env.store(schema, { pool: { connectionTimeoutMs: 3_600_000 } }),
        env.store(schema),
      ] as const;
      await Promise.all([mine.open(), other.open()]);
      const runtime = createMessageRuntime({
        store: mine,
        adapters: [createFakeAdapter({ transport: inProcessTransport(new FakePlatform()) })],
        delivery: { concurrency: 4, pollIntervalMs: 5 },
      });
      await runtime.start();
      await runtime.worker.stop(); // nobody delivers: the sends wait behind "first"
      await runtime.enqueue(outboundMessage("first", { target: { id: "blocked" } }));
      const n = 1_100;
      const outcomes = Array.from({ length: n }, (_, i) =>
        runtime
          .send(outboundMessage(`q${i}`, { target: { id: "blocked" } }), { waitMs: 3_600_000 })
          .then(
            () => "sent",
            (e: Error) => e.name,
          ),
      );
      const byText = new Map<string, string>();
      for (let i = 0; i < 500 && byText.size < n; i++) {
        await new Promise((r) => setTimeout(r, 20));
        for (const x of await other.listIntents({ statuses: ["pending"], limit: 2_000 })) {
          const text = x.message.body?.markdown ?? "";
          if (text !== "first") byText.set(text, x.id);
        }
      }
      const ids = Array.from({ length: n }, (_, i) => byText.get(`q${i}`) as string);
      expect(ids.every(Boolean)).toBe(true);
      // The other process holds the first for an operator and cancels the next 999.
      const held = ids[0] as string;
      await other.transitionIntents([{ id: held, from: "pending", to: "sending" }]);
      await other.transitionIntents([
        {
          id: held,
          from: "sending",
          to: "unknown_after_send",
          patch: { nextAttemptAt: HELD_FOR_OPERATOR_AT },
        },
      ]);
      await other.transitionIntents(
        ids
          .slice(1, 1_000)
          .map((id) => ({ id, from: "pending" as const, to: "cancelled" as const })),
      );
      const settled = await Promise.all(outcomes.slice(0, 1_000));
      expect(settled[0]).toBe("DeliveryPendingError");
      expect(new Set(settled.slice(1))).toEqual(new Set(["DeliveryCancelledError"]));
      // Closed right as those waits end, while the poll asks about the last 100 (its second chunk):
      // before, that read waited out connectionTimeoutMs (here an hour), and with it every wait.
      await runtime.stop();
      await mine.close();
      expect(new Set(await Promise.all(outcomes.slice(1_000)))).toEqual(
        new Set(["StoreUnavailableError"]),
      );
    },
    scaledMs(60_000),
  );
});
