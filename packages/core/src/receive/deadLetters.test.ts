/** Dead letters: payloads that failed to normalize are kept raw; list, replay, discard. */
import { describe, expect, it } from "vitest";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { DeadLetterNotFoundError } from "./errors.ts";
import { manualClock } from "./testing/clock.ts";
import { createFakeTelegramAdapter, teleUpdate } from "./testing/fakeTelegram.ts";
import { receiveBench } from "./testing/harness.ts";
import type { ReceiveChannelAdapter } from "./types.ts";

const tg = { channel: "telegram", accountId: "main" };

/** The fake adapter, but accepting a `message_id` sent as a numeric string (the "fix"). */
function lenientTelegram(): ReceiveChannelAdapter {
  const strict = createFakeTelegramAdapter();
  const receive = strict.receive;
  if (!receive) throw new Error("fake has receive");
  return {
    ...strict,
    receive: {
      ...receive,
      normalize(raw, ctx) {
        const u = raw as { message?: { message_id?: unknown } };
        const id = u.message?.message_id;
        const fixed =
          typeof id === "string"
            ? { ...u, message: { ...u.message, message_id: Number(id) } }
            : raw;
        return receive.normalize(fixed, ctx);
      },
    },
  };
}

function stringIdUpdate(updateId: number) {
  const u = teleUpdate(updateId) as unknown as { message: { message_id: unknown } };
  u.message.message_id = String(updateId);
  return u;
}

describe("dead letters", () => {
  it("replays a dead letter through the runtime once the adapter is fixed", async () => {
    const clock = manualClock();
    const store = new SqliteStateStore({ path: ":memory:", clock: clock.now });
    const before = receiveBench([createFakeTelegramAdapter()], { store, clock });
    const outcome = await before.runtime.receive(stringIdUpdate(3), tg).done;
    expect(outcome).toMatchObject({ status: "dead_lettered" });
    const [letter] = await before.runtime.deadLetters.list();
    expect(letter).toMatchObject({
      status: "new",
      accountId: "main",
      error: { path: "message.message_id" },
    });

    const after = receiveBench([lenientTelegram()], { store, clock });
    expect((await after.runtime.deadLetters.replay(letter?.id ?? "")).status).toBe("processed");
    expect(after.processed).toHaveLength(1);
    expect(await after.runtime.deadLetters.list()).toEqual([]);
    expect(await store.getDeadLetter(letter?.id ?? "")).toMatchObject({
      status: "replayed",
      replayCount: 1,
    });
  });

  it("keeps a letter new, without a second copy, when its replay fails to normalize again", async () => {
    const bench = receiveBench([createFakeTelegramAdapter()]);
    await bench.runtime.receive(stringIdUpdate(4), tg).done;
    const [letter] = await bench.runtime.deadLetters.list();
    const outcome = await bench.runtime.deadLetters.replay(letter?.id ?? "");
    expect(outcome).toMatchObject({ status: "dead_lettered", deadLetterId: letter?.id });
    expect(await bench.store.listDeadLetters({})).toHaveLength(1);
    expect((await bench.store.getDeadLetter(letter?.id ?? ""))?.status).toBe("new");
  });

  it("discards a letter; replaying a discarded or unknown letter is a typed error", async () => {
    const bench = receiveBench([createFakeTelegramAdapter()]);
    await bench.runtime.receive({ nope: true }, tg).done;
    const [letter] = await bench.runtime.deadLetters.list();
    await bench.runtime.deadLetters.discard(letter?.id ?? "");
    expect(await bench.runtime.deadLetters.list()).toEqual([]);
    expect(await bench.runtime.deadLetters.list({ status: "discarded" })).toHaveLength(1);
    await expect(bench.runtime.deadLetters.replay(letter?.id ?? "")).rejects.toBeInstanceOf(
      DeadLetterNotFoundError,
    );
    await expect(bench.runtime.deadLetters.replay("no-such-id")).rejects.toThrow(
      /dead letter no-such-id does not exist/,
    );
  });

  it("keeps a payload JSON cannot hold (a cycle, a BigInt) as a description instead of crashing", async () => {
    const bench = receiveBench([createFakeTelegramAdapter()]);
    const cyclic: Record<string, unknown> = { update_id: 1 };
    cyclic.self = cyclic;
    const outcomes = await Promise.all([
      bench.runtime.receive(cyclic, tg).done,
      bench.runtime.receive({ update_id: 10n }, tg).done,
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["dead_lettered", "dead_lettered"]);
    const letters = await bench.runtime.deadLetters.list();
    expect(letters.map((l) => l.raw)).toEqual([
      expect.objectContaining({ unserializable: true, type: "object" }),
      expect.objectContaining({ unserializable: true, type: "object" }),
    ]);
  });
});
