/**
 * [H20] item 3 under crashes — turn ownership (DESIGN §3 "Waiting is durable", §5, §7): once a
 * message's first reply is durable the message is complete. A crash between the reply's intent
 * and the inbound commit (both written, in that order) must not run the handler again: neither
 * recovery nor a redelivery from the platform does, whichever reply kind the earlier run wrote.
 */
import { describe, expect, it } from "vitest";
import { firstReplyKeys, liveIntentKey, replyKey, streamReplyKey } from "../message/keys.ts";
import type { ChannelMessage } from "../message/message.ts";
import { createFakeTelegramAdapter, teleUpdate } from "./testing/fakeTelegram.ts";
import { receiveBench } from "./testing/harness.ts";

const tg = { channel: "telegram", accountId: "main" };
const immediate = createFakeTelegramAdapter({
  ackPolicy: { kind: "immediate", reason: "webhook-timeout" },
});

/** A handler that writes its reply intent, then "dies" before the commit (it throws). */
function crashAfterReply(keyOf: (inbound: ChannelMessage) => string) {
  let runs = 0;
  const bench = receiveBench([immediate], {
    handler: async (ctx) => {
      runs += 1;
      await bench.store.enqueueIntents([
        {
          idempotencyKey: keyOf(ctx.input),
          message: {
            id: `out-${ctx.input.id}`,
            channel: ctx.input.channel,
            direction: "outbound",
            target: ctx.input.target,
            body: { markdown: "answer" },
            ...(ctx.input.accountId === undefined ? {} : { accountId: ctx.input.accountId }),
          },
        },
      ]);
      if (runs === 1) throw new Error("SIGKILL stand-in: the commit never landed");
    },
  });
  return { bench, runs: () => runs };
}

describe("a message whose reply an earlier run made durable", () => {
  for (const [kind, keyOf] of [
    ["text reply", (m: ChannelMessage) => replyKey(m, 1)],
    ["streamed reply (live intent)", (m: ChannelMessage) => liveIntentKey(streamReplyKey(m, 1), 1)],
  ] as const) {
    it(`is not run again by recovery (${kind})`, async () => {
      const { bench, runs } = crashAfterReply(keyOf);
      const ticket = bench.runtime.receive(teleUpdate(1), tg);
      expect(await ticket.ack).toEqual({ kind: "accept" });
      expect(await ticket.done).toMatchObject({ status: "failed", recorded: true });

      expect(await bench.runtime.recover()).toMatchObject({ processed: 1, deadLettered: 0 });
      expect(runs()).toBe(1);
      // Complete: a later pass and a redelivery find it done.
      expect(await bench.runtime.recover()).toMatchObject({ redispatched: 0, held: 0 });
      const again = bench.runtime.receive(teleUpdate(1), tg);
      expect(await again.done).toMatchObject({ status: "duplicate" });
      expect(runs()).toBe(1);
    });
  }

  it("is not run again by the platform's redelivery either", async () => {
    const { bench, runs } = crashAfterReply((m) => replyKey(m, 1));
    await bench.runtime.receive(teleUpdate(1), tg).done;
    const redelivered = bench.runtime.receive(teleUpdate(1), tg);
    expect(await redelivered.done).toMatchObject({ status: "processed" });
    expect(await redelivered.ack).toEqual({ kind: "accept" });
    expect(runs()).toBe(1);
  });

  it("runs again when no reply was written (the crash came first)", async () => {
    const { bench, runs } = crashAfterReply(() => "some-other-key");
    await bench.runtime.receive(teleUpdate(1), tg).done;
    expect(await bench.runtime.recover()).toMatchObject({ processed: 1 });
    expect(runs()).toBe(2);
  });

  it("names the first text reply, the first stream's live intent and its final", () => {
    const m = { channel: "telegram", accountId: "main", id: "42" };
    expect(firstReplyKeys(m)).toEqual([
      "reply:telegram:main:42:1",
      "stream:telegram:main:42:1:live",
      "stream:telegram:main:42:1",
    ]);
  });
});
