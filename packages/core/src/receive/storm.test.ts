/**
 * Redelivery storm: 2,000 distinct events, each delivered 1–5 times in random order to two
 * gateway processes sharing one store, 10% of first attempts failing. The fake platform
 * redelivers whenever the ack says `retry`. → Each event is processed successfully exactly once.
 */
import { describe, expect, it } from "vitest";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { manualClock } from "./testing/clock.ts";
import {
  createFakeDiscordAdapter,
  type DiscordDispatch,
  discordMessage,
} from "./testing/fakeDiscord.ts";
import { receiveBench } from "./testing/harness.ts";
import { seededRandom, shuffle } from "./testing/random.ts";

const EVENTS = 2_000;
const SEED = 20_250_101;

describe("redelivery storm", () => {
  it(`processes each of ${EVENTS} events successfully exactly once`, async () => {
    const random = seededRandom(SEED);
    const clock = manualClock();
    const store = new SqliteStateStore({ path: ":memory:", clock: clock.now });
    const ids = Array.from({ length: EVENTS }, (_, i) => String(1_000_000 + i));
    const failFirst = new Set(ids.filter(() => random() < 0.1));
    const attempts = new Map<string, number>();
    const successes = new Map<string, number>();
    const handler = async (ctx: { input: { platformMessageId?: string } }) => {
      const id = ctx.input.platformMessageId ?? "";
      const n = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, n);
      await new Promise((resolve) => setImmediate(resolve)); // let other deliveries interleave
      if (n === 1 && failFirst.has(id)) throw new Error(`first attempt of ${id} fails`);
      successes.set(id, (successes.get(id) ?? 0) + 1);
    };
    const processes = ["gw-a", "gw-b"].map((instanceId) =>
      receiveBench([createFakeDiscordAdapter()], { store, clock, instanceId, handler }),
    );

    const queue: DiscordDispatch[] = shuffle(
      ids.flatMap((id) =>
        Array.from({ length: 1 + Math.floor(random() * 5) }, () =>
          discordMessage(id, { id: "42" }),
        ),
      ),
      random,
    );
    const initialDeliveries = queue.length;
    let deliveries = 0;
    const signals = { accept: 0, retry: 0 };
    const outcomes: Record<string, number> = {};
    const done: Promise<unknown>[] = [];
    const connection = async () => {
      for (let d = queue.shift(); d !== undefined; d = queue.shift()) {
        deliveries += 1;
        if (deliveries > initialDeliveries * 10) throw new Error("storm does not converge");
        const gateway = processes[Math.floor(random() * processes.length)];
        const ticket = gateway?.runtime.receive(d, { channel: "discord", accountId: "bot" });
        done.push(
          ticket?.done.then((o) => (outcomes[o.status] = (outcomes[o.status] ?? 0) + 1)) ??
            Promise.resolve(),
        );
        const ack = await ticket?.ack;
        if (ack?.kind === "retry") {
          signals.retry += 1;
          queue.push(d); // the platform redelivers
        } else signals.accept += 1;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: 16 }, connection));
    await Promise.all(processes.map((p) => p.runtime.drain()));
    await Promise.all(done);
    const elapsedMs = performance.now() - started;

    expect(successes.size).toBe(EVENTS);
    expect([...successes.values()].every((n) => n === 1)).toBe(true);
    expect(failFirst.size).toBeGreaterThan(EVENTS * 0.07);
    for (const id of failFirst) expect(attempts.get(id)).toBeGreaterThanOrEqual(2);
    const records = await Promise.all(
      ids.map((eventId) => store.getDedupe({ channel: "discord", accountId: "bot", eventId })),
    );
    expect(records.every((r) => r?.status === "done")).toBe(true);
    console.info(
      `storm: ${EVENTS} events, ${initialDeliveries} deliveries (+${deliveries - initialDeliveries} redeliveries), ` +
        `${failFirst.size} failing first attempts, acks ${JSON.stringify(signals)}, ` +
        `outcomes ${JSON.stringify(outcomes)}, ${Math.round(elapsedMs)} ms`,
    );
  });
});
