/**
 * A turn's reply ends its typing ([H14] item 8; DESIGN §7): `runtime.typing` in a turn whose
 * reply goes through `runtime.send`, `enqueue` or a live final — once the reply is durable the
 * indicator in that chat is stopped before the reply is delivered, so no typing call reaches the
 * platform after it however long the turn keeps working. Other chats keep their typing.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChannelMessage } from "../message/message.ts";
import { type LiveHarness, liveHarness } from "./testing/harness.ts";

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

const inboundOf = (harness: LiveHarness): ChannelMessage => ({
  id: "in-t",
  channel: "qa",
  accountId: "bot-1",
  direction: "inbound",
  target: harness.target.target,
  sender: { id: "user-1" },
  body: { markdown: "question" },
});

const replyOf = (harness: LiveHarness, id = "reply-t"): ChannelMessage => ({
  id,
  channel: "qa",
  accountId: "bot-1",
  direction: "outbound",
  target: harness.target.target,
  body: { markdown: "the answer" },
});

/** Typing calls that showed the indicator after the first message was sent. */
function typingAfterReply(harness: LiveHarness) {
  const calls = harness.platform.calls;
  const sentAt = calls.findIndex((c) => c.op === "send");
  expect(sentAt).toBeGreaterThanOrEqual(0);
  return calls.slice(sentAt + 1).filter((c) => c.op === "typing" && c.on === true);
}

const workMore = (harness: LiveHarness) =>
  new Promise<void>((r) => harness.time.timers.setTimeout(r, 20_000));

describe("typing vs a reply in the same turn", () => {
  it("runtime.send: no typing call reaches the platform after the reply", async () => {
    h = await liveHarness({ adapter: { live: { typing: true } } });
    const harness = h;
    await harness.drive(
      harness.runtime.turn(inboundOf(harness), async () => {
        harness.runtime.typing(harness.target);
        await harness.runtime.send(replyOf(harness));
        // The handler keeps working after replying (memory write, tool cleanup): 20 s.
        await workMore(harness);
      }),
      100,
      60_000,
    );
    expect(typingAfterReply(harness)).toEqual([]);
  });

  it("runtime.enqueue: the typing stops before the worker delivers the reply", async () => {
    h = await liveHarness({ adapter: { live: { typing: true } } });
    const harness = h;
    await harness.drive(
      harness.runtime.turn(inboundOf(harness), async () => {
        harness.runtime.typing(harness.target);
        await harness.runtime.enqueue(replyOf(harness, "reply-q"));
        await workMore(harness);
      }),
      100,
      60_000,
    );
    expect(harness.visible()).toEqual(["the answer"]);
    expect(typingAfterReply(harness)).toEqual([]);
  });

  it("a live final stops the turn's runtime.typing too", async () => {
    h = await liveHarness({ adapter: { live: { typing: true } } });
    const harness = h;
    await harness.drive(
      harness.runtime.turn(inboundOf(harness), async () => {
        harness.runtime.typing(harness.target);
        const live = await harness.runtime.live(harness.target, { typing: false });
        await live.finalize("the answer");
        await workMore(harness);
      }),
      100,
      60_000,
    );
    expect(harness.visible()).toEqual(["the answer"]);
    expect(typingAfterReply(harness)).toEqual([]);
  });

  it("a reply in another chat leaves this chat's typing running", async () => {
    h = await liveHarness({ adapter: { live: { typing: true } } });
    const harness = h;
    await harness.drive(
      harness.runtime.turn(inboundOf(harness), async () => {
        harness.runtime.typing(harness.target);
        await harness.runtime.send({
          ...replyOf(harness),
          target: { kind: "direct", id: "other" },
        });
        await workMore(harness);
      }),
      100,
      60_000,
    );
    expect(typingAfterReply(harness).length).toBeGreaterThan(0);
  });
});
