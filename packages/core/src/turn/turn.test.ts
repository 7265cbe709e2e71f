import { afterEach, describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../state/errors.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import { TurnInterruptedError } from "./errors.ts";
import type { TurnEndData } from "./ledger.ts";
import { type TurnHarness, turnHarness } from "./testing/harness.ts";
import { TURN_EVENT, type TurnLifecycleEvent, type TurnMessage } from "./types.ts";

let h: TurnHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CONVERSATION = "chat/qa/bot-1/room-1";

async function events(conversation = CONVERSATION) {
  return (await h?.ledger(conversation)) ?? [];
}

async function endOf(turnId: string): Promise<TurnEndData | undefined> {
  const end = (await events()).find((e) => e.type === TURN_EVENT.end && e.turnId === turnId);
  return end?.data as TurnEndData | undefined;
}

describe("turn lifecycle", () => {
  it("writes turn/start with the user node, then turn/end completed, and tells subscribers with seqs", async () => {
    h = await turnHarness();
    const seen: TurnLifecycleEvent[] = [];
    h.runtime.onTurn((e) => {
      seen.push(e);
    });
    const inbound = h.say("hello");
    const value = await h.runtime.turn(inbound, async (turn) => {
      await turn.reply("hi there");
      return 42;
    });
    expect(value).toBe(42);
    const ledger = await events();
    expect(ledger.map((e) => [e.seq, e.type])).toEqual([
      [1, TURN_EVENT.start],
      [2, TURN_EVENT.message],
      [3, TURN_EVENT.message],
      [4, TURN_EVENT.end],
    ]);
    expect(ledger.map((e) => (e.data as TurnMessage).role).slice(1, 3)).toEqual([
      "user",
      "assistant",
    ]);
    expect(ledger[0]?.data).toMatchObject({ rootMessageId: inbound.id, channel: "qa" });
    expect(ledger[3]?.data).toEqual({ outcome: "completed" });
    expect(seen.map((e) => [e.type, e.seq])).toEqual([
      ["started", 1],
      ["ended", 4],
    ]);
    expect(seen[1]).toMatchObject({ outcome: "completed", root: { id: inbound.id } });
    // The reply went to the chat, as a reply to the user's message.
    expect(h.botMessages().map((m) => [m.text, m.thread])).toEqual([["hi there", undefined]]);
  });

  it("ends with outcome error, an error node before turn/end, and rethrows the handler's error", async () => {
    h = await turnHarness();
    const run = h.runtime.turn(h.say("break it"), async () => {
      throw new TypeError("tool crashed");
    });
    await expect(run).rejects.toThrow("tool crashed");
    const ledger = await events();
    expect(ledger.slice(-2).map((e) => e.type)).toEqual([TURN_EVENT.message, TURN_EVENT.end]);
    expect(ledger.at(-2)?.data).toMatchObject({ role: "error", text: "TypeError: tool crashed" });
    expect(ledger.at(-1)?.data).toMatchObject({
      outcome: "error",
      error: { name: "TypeError", message: "tool crashed" },
    });
  });

  it("makes a failed spawned task the turn's error, after waiting for it", async () => {
    h = await turnHarness();
    let turnId = "";
    const run = h.runtime.turn(h.say("go"), (turn) => {
      turnId = turn.turnId;
      turn.spawn(async () => {
        await new Promise((r) => setTimeout(r, 5));
        throw new Error("background job failed");
      });
    });
    await expect(run).rejects.toThrow("background job failed");
    expect(await endOf(turnId)).toMatchObject({ outcome: "error" });
  });

  it("waits for sends the handler did not await before writing turn/end", async () => {
    h = await turnHarness();
    const order: string[] = [];
    h.runtime.onTurn((e) => {
      if (e.type === "ended") order.push(`ended with ${h?.botMessages().length} message(s)`);
    });
    await h.runtime.turn(h.say("fire and forget"), async (turn) => {
      void turn.reply("sent in the background");
    });
    expect(order).toEqual(["ended with 1 message(s)"]);
  });

  it("ends aborted when the turn is aborted, or the receive context's signal fires", async () => {
    h = await turnHarness();
    let first = "";
    await h.runtime.turn(h.say("stop"), async (turn) => {
      first = turn.turnId;
      turn.abort("user said /stop");
    });
    expect(await endOf(first)).toMatchObject({ outcome: "aborted" });

    const lease = new AbortController();
    let second = "";
    await h.runtime
      .turn({ input: h.say("lease lost"), signal: lease.signal }, async (turn) => {
        second = turn.turnId;
        lease.abort(new Error("dedupe lease lost"));
        turn.signal.throwIfAborted();
      })
      .catch(() => {});
    expect(await endOf(second)).toMatchObject({ outcome: "aborted" });
  });

  it("ends interrupted when the watchdog TTL runs out, aborts the signal and rejects", async () => {
    h = await turnHarness({ turns: { watchdogMs: 60_000 } });
    let signal: AbortSignal | undefined;
    let turnId = "";
    const run = h.runtime.turn(h.say("hang"), (turn) => {
      signal = turn.signal;
      turnId = turn.turnId;
      return new Promise<void>(() => {}); // never settles
    });
    const outcome = run.catch((e: unknown) => e);
    await h.time.advance(59_000);
    expect(await endOf(turnId)).toBeUndefined();
    await h.time.advance(1_000);
    expect(await outcome).toBeInstanceOf(TurnInterruptedError);
    expect(await endOf(turnId)).toEqual({ outcome: "interrupted", reason: "watchdog" });
    expect(signal?.aborted).toBe(true);
    // Activity after the end is not written to the (closed) turn.
    const before = (await events()).length;
    await h.runtime.activity({ role: "tool", name: "Late", turnId });
    expect((await events()).length).toBe(before);
  });

  it("closes a turn a dead process left open once its TTL passed, when the next turn starts", async () => {
    h = await turnHarness({ turns: { watchdogMs: 60_000 } });
    const started = h.time.now();
    await h.store.appendLedger([
      {
        conversation: CONVERSATION,
        type: TURN_EVENT.start,
        turnId: "dead-turn",
        at: started,
        data: {
          rootMessageId: "x",
          channel: "qa",
          target: { kind: "group", id: "room-1" },
          watchdogMs: 60_000,
        },
      },
    ]);
    await h.runtime.turn(h.say("too soon"), async () => {});
    expect(await endOf("dead-turn")).toBeUndefined(); // still within its TTL: maybe alive elsewhere
    await h.time.advance(61_000);
    await h.runtime.turn(h.say("later"), async () => {});
    expect(await endOf("dead-turn")).toEqual({ outcome: "interrupted", reason: "stale" });
  });

  it("does not run the handler when turn/start cannot be written", async () => {
    h = await turnHarness();
    const store = h.store;
    const broken: MessageStateStore = Object.create(store, {
      appendLedger: {
        value: async () => {
          throw new StoreUnavailableError("appendLedger", new Error("disk full"));
        },
      },
    });
    const { createMessageRuntime } = await import("../runtime.ts");
    const runtime = createMessageRuntime({ store: broken, adapters: [] });
    let ran = false;
    await expect(
      runtime.turn(h.say("x"), () => {
        ran = true;
      }),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(ran).toBe(false);
  });

  it("keeps turn events apart from the receive inbox's conversation", async () => {
    h = await turnHarness();
    await h.runtime.turn(h.say("x"), async () => {});
    expect(await events("herald.inbox/qa")).toEqual([]);
    expect((await events()).length).toBeGreaterThan(0);
  });
});
