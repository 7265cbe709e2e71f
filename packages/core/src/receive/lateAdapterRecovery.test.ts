/**
 * [H20] item 3 / 4: a gateway's accounts open after `runtime.start()` (their clients are built
 * asynchronously) and register their adapters then. Messages a crash interrupted mid-handler
 * (recorded and answered to the platform) must be recovered as soon as their account's
 * adapter is registered — not at the next 30 s interval pass, nor never. Found by the webhook
 * burst load test once the handler did async work before replying: 258 interrupted handlers
 * of 600 were not re-run before the test gave up.
 */
import { afterEach, expect, it } from "vitest";
import { eventually } from "../delivery/testing/harness.ts";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { createFakeTelegramAdapter, teleUpdate } from "./testing/fakeTelegram.ts";

const cleanups: Array<() => Promise<void>> = [];

/** The fake Telegram receive side, answering once the inbound record is durable. */
function fakeReceive() {
  const receive = createFakeTelegramAdapter({
    channel: "qa",
    ackPolicy: { kind: "after-record" },
  }).receive;
  if (!receive) throw new Error("the fake adapter receives");
  return receive;
}
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

it("an adapter registered after start() gets its channel's interrupted messages recovered at once", async () => {
  const platform = new FakePlatform();
  const store = new SqliteStateStore({ path: ":memory:" });
  const adapter = () => ({
    ...createFakeAdapter({ transport: inProcessTransport(platform) }),
    receive: fakeReceive(),
  });

  // The first incarnation records and answers two messages, then "dies" inside the handlers.
  let crash!: () => void;
  const hung = new Promise<void>((resolve) => {
    crash = resolve;
  });
  let firstRuns = 0;
  const first: MessageRuntime = createMessageRuntime({
    store,
    adapters: [adapter()],
    delivery: { workerId: "gw", pollIntervalMs: 5 },
    receive: {
      handler: async () => {
        firstRuns += 1;
        await hung;
        throw new Error("the process died here");
      },
    },
  });
  cleanups.push(async () => {
    crash();
    await first.stop(100);
  });
  await first.start();
  for (const n of [1, 2]) {
    const update = teleUpdate(n, { chatId: n, text: `hello ${n}` });
    const { ack } = first.receive(update, { channel: "qa", accountId: "bot-1" });
    expect(await ack).toMatchObject({ kind: "accept" });
  }
  await eventually(
    () => firstRuns,
    (n) => n === 2,
  );

  // The restart: same store and instance, no adapter until its account has opened.
  const ran: string[] = [];
  const second: MessageRuntime = createMessageRuntime({
    store,
    adapters: [],
    delivery: { workerId: "gw", pollIntervalMs: 5 },
    receive: {
      handler: async (ctx) => {
        ran.push(ctx.input.body?.markdown ?? "");
        await second.turn({ input: ctx.input, signal: ctx.signal }, (turn) =>
          turn.reply(`re: ${ctx.input.body?.markdown ?? ""}`),
        );
      },
    },
  });
  cleanups.push(() => second.stop(100));
  await second.start();
  expect(await second.startupRecovery()).toMatchObject({ redispatched: 0 }); // nothing to run on
  second.addAdapter(adapter());
  // Recovered within seconds (the interval pass is 30 s away), each exactly once.
  await eventually(
    () => ran.length,
    (n) => n >= 2,
    10_000,
  );
  const sent = await eventually(
    async () => (await store.listIntents({ limit: 10 })).filter((i) => i.status === "sent"),
    (intents) => intents.length === 2,
  );
  expect(ran.sort()).toEqual(["hello 1", "hello 2"]);
  expect(sent.map((i) => i.message.body?.markdown).sort()).toEqual(["re: hello 1", "re: hello 2"]);
});

it("a recovery pass over messages still being handled here holds each one and fails nothing (lanes never take past the end)", async () => {
  const platform = new FakePlatform();
  const store = new SqliteStateStore({ path: ":memory:" });
  const errors: string[] = [];
  const logger = {
    debug() {},
    info() {},
    warn() {},
    error(_fields: unknown, message: string) {
      errors.push(message);
    },
    child() {
      return logger;
    },
  };
  let finish!: () => void;
  const slow = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let runs = 0;
  const runtime: MessageRuntime = createMessageRuntime({
    store,
    logger,
    adapters: [
      {
        ...createFakeAdapter({ transport: inProcessTransport(platform) }),
        receive: fakeReceive(),
      },
    ],
    delivery: { pollIntervalMs: 5 },
    receive: {
      handler: async () => {
        runs += 1;
        await slow; // a long turn (a model call), still running when the pass comes
      },
    },
  });
  cleanups.push(async () => {
    finish();
    await runtime.stop(100);
  });
  await runtime.start();
  await runtime.startupRecovery();
  const done: Promise<unknown>[] = [];
  for (const n of [1, 2, 3]) {
    const r = runtime.receive(teleUpdate(n, { chatId: n, text: `m${n}` }), {
      channel: "qa",
      accountId: "bot-1",
    });
    await r.ack;
    done.push(r.done);
  }
  await eventually(
    () => runs,
    (n) => n === 3,
  );
  expect(await runtime.recoverInbound()).toEqual({
    redispatched: 0,
    processed: 0,
    deadLettered: 0,
    held: 3,
  });
  expect(errors).toEqual([]);
  finish();
  await Promise.all(done);
  expect(runs).toBe(3);
});
