/**
 * [H14] item 7 in core ([H20] item 3): a reply stuck behind a rate limit outlasts the handler's
 * wait — `DeliveryPendingError` after the reply intent was stored. The inbound message is
 * complete: processed, its turn `completed`, and inbound recovery never runs the handler again.
 */
import { afterEach, expect, it } from "vitest";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { createFakeTelegramAdapter, teleUpdate } from "./testing/fakeTelegram.ts";

let runtime: MessageRuntime | undefined;
afterEach(async () => {
  await runtime?.stop(100);
  runtime = undefined;
});

it("a rate-limited reply is delivered later; the handler ran once", async () => {
  const platform = new FakePlatform();
  const receive = createFakeTelegramAdapter({ channel: "qa" }).receive;
  if (!receive) throw new Error("the fake adapter receives");
  const store = new SqliteStateStore({ path: ":memory:" });
  let runs = 0;
  const rt = createMessageRuntime({
    store,
    adapters: [{ ...createFakeAdapter({ transport: inProcessTransport(platform) }), receive }],
    delivery: { pollIntervalMs: 5 },
    receive: {
      handler: async (ctx) => {
        runs += 1;
        await rt.turn({ input: ctx.input, signal: ctx.signal }, (turn) =>
          turn.reply("answer", { waitMs: 50, onDurable: () => ctx.repliesDurable() }),
        );
      },
    },
  });
  runtime = rt;
  await rt.start();
  platform.failNext({ type: "status", status: 429, retryAfterS: 60 }, 1, "send");
  const outcome = await rt.receive(teleUpdate(1), { channel: "qa", accountId: "bot-1" }).done;
  expect(outcome.status).toBe("processed");
  expect(await rt.recoverInbound()).toMatchObject({ redispatched: 0 });
  expect(runs).toBe(1);
  const reply = (await store.listIntents({ limit: 10 })).find(
    (i) => i.message.body?.markdown === "answer",
  );
  expect(reply).toMatchObject({ status: "pending" }); // stored, waiting out the retry-after
  const ledger = await store.readLedger({ conversation: "chat/qa/bot-1/1" });
  expect(ledger.find((e) => e.type === "turn/end")?.data).toMatchObject({
    outcome: "completed",
    reason: "delivery_pending",
  });
});
