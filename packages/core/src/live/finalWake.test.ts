/**
 * A live final held back by its preview's edit rate (`notBefore`) goes out when the rate allows,
 * not at the delivery loop's next poll: the lease the final's enqueue sets off finds it not due
 * yet, so the worker keeps a wake at its due time. Real time, an hour's poll and an hour's wait:
 * a final left to the poll times the test out, however busy the machine (no assertion on
 * elapsed time).
 */
import { afterEach, expect, it } from "vitest";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";

let runtime: MessageRuntime | undefined;
afterEach(async () => {
  await runtime?.stop(1_000).catch(() => {});
  runtime = undefined;
});

it("a final held back by the edit rate is delivered when the rate allows, not at the next poll", async () => {
  const platform = new FakePlatform();
  const store = new SqliteStateStore({ path: ":memory:" });
  runtime = createMessageRuntime({
    store,
    adapters: [
      createFakeAdapter({
        transport: inProcessTransport(platform),
        live: { editRate: { limit: 1, intervalMs: 600 } },
      }),
    ],
    delivery: { pollIntervalMs: 3_600_000 },
  });
  await runtime.start();
  const live = await runtime.live(
    { channel: "qa", accountId: "bot-1", target: { kind: "direct", id: "dm-1" } },
    { idempotencyKey: "reply:held", waitMs: 3_600_000 },
  );
  live.update("Hello");
  await live.idle();
  live.update("Hello wor");
  await live.idle();
  const receipt = await live.finalize("Hello world");
  expect(receipt.platformMessageIds.length).toBeGreaterThan(0);
  expect(platform.visible("dm-1").map((m) => m.text)).toEqual(["Hello world"]);
  const intent = await store.getIntentByIdempotencyKey("reply:held");
  expect(intent?.status).toBe("sent");
  await store.close();
});
