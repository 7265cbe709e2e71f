/**
 * The live adapter as the seed's lifecycle (seed `message-lifecycle.md`, "Live context":
 * `begin` / `update` / `finalize` / `cancel`; DESIGN §6; issue H27): core's live module drives a
 * channel written in that shape, and one still written with the deprecated `live.stream`.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { MessageLiveAdapter, MessageLiveStreamAdapter } from "../adapter/live.ts";
import type { ChannelMessageAdapter } from "../adapter/types.ts";
import type { ChannelMessage } from "../message/message.ts";
import { type MessageReceiptPart, receiptFromParts } from "../message/receipt.ts";
import { type LiveHarness, liveHarness } from "./testing/harness.ts";

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const INTERVAL = 1_020; // a little past the 1 s edit rate
/** Like Slack: streams only for a known recipient; stop appends its text. */
const slackLike = {
  live: {
    editRate: { limit: 1, intervalMs: 1_000 },
    stream: {
      stop: "append" as const,
      supports: (m: ChannelMessage) => m.recipient !== undefined,
    },
  },
};
const recipient = { userId: "U_ALICE" };

function partOf(receipt: { parts: MessageReceiptPart[] } | undefined): MessageReceiptPart {
  const part = receipt?.parts[0];
  if (!part) throw new Error("the live state names no message");
  return part;
}

/**
 * The fake channel rewritten in the seed's shape: its platform client is the fake's stream
 * (start / append / stop calls); every lifecycle call is logged in `calls`.
 * @param keepStream - leave a `stream` that must not be used (the lifecycle wins).
 */
function seedShaped(calls: string[], keepStream = false) {
  return (adapter: ChannelMessageAdapter): ChannelMessageAdapter => {
    const client = adapter.live?.stream as MessageLiveStreamAdapter;
    const { stream: _deprecated, ...rest } = adapter.live as MessageLiveAdapter;
    const unused = async () => {
      throw new Error("the deprecated stream was called although the lifecycle is given");
    };
    const live: MessageLiveAdapter = {
      ...rest,
      ...(keepStream ? { stream: { begin: unused, append: unused, finish: unused } } : {}),
      supports: (message) => client.supports?.(message) ?? true,
      async begin(ctx, first) {
        calls.push(`begin:${first.markdown}`);
        const part = await client.begin(ctx, first.markdown);
        return { mode: "native", canFinalizeInPlace: true, receipt: receiptFromParts([part]) };
      },
      async update(ctx, state, step) {
        calls.push(`update:${step.deltaMarkdown}|${step.markdown}`);
        await client.append(ctx, partOf(state.receipt), step.deltaMarkdown);
        return state;
      },
      async finalize(ctx, state, final) {
        calls.push(`finalize:${final.markdown}|shown:${final.shown}`);
        return receiptFromParts([await client.finish(ctx, partOf(state.receipt), final)]);
      },
      async cancel(ctx, state, reason) {
        calls.push(`cancel:${reason}`);
        await client.finish(ctx, partOf(state.receipt));
      },
    };
    return {
      ...adapter,
      live,
      send: {
        ...adapter.send,
        async afterCommit(_ctx, receipt) {
          calls.push(`afterCommit:${receipt.platformMessageIds.join(",")}`);
        },
      },
    };
  };
}

describe("live lifecycle begin / update / finalize / cancel (H27, seed 'Live context')", () => {
  it("H27 core drives begin → update → finalize and commits finalize's receipt as the final", async () => {
    const calls: string[] = [];
    h = await liveHarness({ adapter: slackLike, wrap: seedShaped(calls) });
    const live = await h.runtime.live({ ...h.target, recipient }, { mode: "auto" });
    expect(live.mode).toBe("native");
    live.update("Hello ");
    await live.idle();
    await h.time.advance(INTERVAL);
    live.update("Hello wor");
    await live.idle();
    expect(h.visible()).toEqual(["Hello wor"]);
    const receipt = await h.drive(live.finalize("Hello world"));
    const [stream] = h.platform.visible("dm-1");
    expect(stream).toMatchObject({ text: "Hello world", streaming: false });
    expect(receipt.platformMessageIds).toEqual([stream?.id]);
    expect(calls).toEqual([
      "begin:Hello ",
      "update:wor|Hello wor",
      "finalize:Hello world|shown:Hello wor",
      `afterCommit:${stream?.id}`,
    ]);
    const sent = (await h.store.listIntents({ limit: 10 })).filter((i) => i.status === "sent");
    expect(sent.map((i) => i.receipt?.platformMessageIds)).toContainEqual([stream?.id]);
  });

  it("H27 a session cancelled with its messages kept calls cancel with the reason; the text stays", async () => {
    const calls: string[] = [];
    h = await liveHarness({ adapter: slackLike, wrap: seedShaped(calls) });
    const live = await h.runtime.live(
      { ...h.target, recipient },
      { mode: "native", onCancel: "keep" },
    );
    live.update("Partial answer");
    await live.idle();
    await h.drive(live.cancel("superseded"));
    expect(calls).toEqual([
      "begin:Partial answer",
      "cancel:superseded",
      expect.stringMatching(/^afterCommit:/),
    ]);
    expect(h.platform.visible("dm-1")).toMatchObject([
      { text: "Partial answer", streaming: false },
    ]);
  });

  it("H27 the lifecycle wins over a deprecated stream given beside it", async () => {
    const calls: string[] = [];
    h = await liveHarness({ adapter: slackLike, wrap: seedShaped(calls, true) });
    const live = await h.runtime.live({ ...h.target, recipient }, { mode: "native" });
    live.update("One");
    await live.idle();
    await h.drive(live.finalize("One two"));
    expect(h.visible()).toEqual(["One two"]);
    expect(calls.slice(0, 2)).toEqual(["begin:One", "finalize:One two|shown:One"]);
  });

  it("H27 supports() false: the lifecycle is not used, the session falls back to previews", async () => {
    const calls: string[] = [];
    h = await liveHarness({ adapter: slackLike, wrap: seedShaped(calls) });
    const live = await h.runtime.live(h.target, { mode: "auto" }); // no recipient
    expect(live.mode).toBe("partial");
    live.update("Hi");
    await live.idle();
    await h.drive(live.finalize("Hi!"));
    expect(h.visible()).toEqual(["Hi!"]);
    expect(calls.filter((c) => !c.startsWith("afterCommit"))).toEqual([]);
  });
});
