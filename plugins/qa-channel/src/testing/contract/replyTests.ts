/**
 * Contract tests: where every part of a multi-part reply lands — in the thread (all parts), with
 * the reply reference (part 0 only), in the thread a `thread` placement opens — asserted on the
 * platform's visible state. Replies answer a message received through the channel's real
 * receiver, addressed with `placeReply` as turns do.
 *
 * @module
 */
import {
  type ChannelMessage,
  type MessageTarget,
  placeReply,
  type ReplyPlacement,
} from "@herald/plugin-sdk/channel-message";
import { eventually, type VisibleMessage } from "@herald/plugin-sdk/testing";
import { expect } from "vitest";
import type { ContractSuite, ContractTestContext } from "./registry.ts";
import { type ContractRun, maxLengthOf, normalizeSpace, openRun, wordsOfLength } from "./setup.ts";

/** The bot's own messages in `target` (a thread root or a user's message is not ours). */
async function ours(run: ContractRun, target: MessageTarget): Promise<VisibleMessage[]> {
  return (await run.visible(target)).filter((m) => m.author.bot);
}

/** A person writes `text` in `target`; resolves with the message as the bot received it. */
async function received(
  run: ContractRun,
  ctx: ContractTestContext,
  target: MessageTarget,
  text: string,
): Promise<ChannelMessage> {
  const inbound = run.platform.inbound;
  ctx.skip(
    !inbound || !run.harness.createReceiver,
    "the harness has no inbound side (platform.inbound + createReceiver): no message to reply to",
  );
  await run.startReceiver();
  const { platformMessageId } = await (inbound as NonNullable<typeof inbound>).post(target, {
    text,
  });
  const turns = await eventually(
    () => run.handled.filter((t) => t.input.platformMessageId === platformMessageId),
    (t) => t.length > 0,
    { what: `the bot to receive ${platformMessageId}` },
  );
  return (turns[0] as (typeof turns)[number]).input;
}

/** Sends a reply of about three parts to `inbound` with `placement`; returns it and its text. */
async function replyInParts(run: ContractRun, inbound: ChannelMessage, placement: ReplyPlacement) {
  const address = placeReply(inbound, placement);
  const text = wordsOfLength(maxLengthOf(run.adapter) * 2.5, "r");
  const receipt = await run.runtime.send(
    run.message(address.target, text, { relation: address.relation }),
  );
  return { address, text, receipt };
}

/** Registers the `reply` area. */
export function replyTests(suite: ContractSuite): void {
  const { harness: h, test, describe } = suite;
  if (!suite.has("reply")) return;
  describe("replies and threads", () => {
    // kills: reply relation or thread dropped on chunk 2+
    test(
      "reply.thread-multi-part",
      "every part of a multi-part message sent into a thread lands in that thread, none at the top level",
      async (ctx) => {
        const run = await openRun(h);
        const createThread = run.platform.createThread?.bind(run.platform);
        ctx.skip(!createThread, "the fake platform has no threads (createThread)");
        const group = await run.platform.createTarget("group");
        const thread = await (createThread as NonNullable<typeof createThread>)(group);
        const text = wordsOfLength(maxLengthOf(run.adapter) * 2.5, "t");
        const receipt = await run.runtime.send(run.message(thread, text));
        const parts = await ours(run, thread);
        expect(parts.length).toBeGreaterThanOrEqual(3);
        expect(normalizeSpace(parts.map((m) => m.text).join(" "))).toBe(normalizeSpace(text));
        expect(receipt.platformMessageIds).toEqual(parts.map((m) => m.id));
        expect(await ours(run, group)).toEqual([]);
      },
    );

    // kills: reply relation dropped; reply relation on every chunk
    test(
      "reply.quote-multi-part",
      "a multi-part quote reply: part 0 shows the reply reference to the person's message, later parts none, all in place",
      async (ctx) => {
        const run = await openRun(h);
        ctx.skip(
          !run.adapter.capabilities.threads?.reply,
          "capabilities.threads.reply not declared",
        );
        const group = await run.platform.createTarget("group");
        const inbound = await received(run, ctx, group, "please answer at length");
        const { address, text, receipt } = await replyInParts(run, inbound, "quote");
        const parts = await ours(run, address.target);
        expect(parts.length).toBeGreaterThanOrEqual(3);
        expect(normalizeSpace(parts.map((m) => m.text).join(" "))).toBe(normalizeSpace(text));
        expect(receipt.platformMessageIds).toEqual(parts.map((m) => m.id));
        expect(parts.map((m) => m.replyTo ?? null)).toEqual([
          inbound.platformMessageId,
          ...parts.slice(1).map(() => null),
        ]);
      },
    );

    // kills: reply relation or thread dropped on chunk 2+
    test(
      "reply.in-thread-multi-part",
      "a multi-part reply to a message in a thread: every part in that thread, part 0 with the reply reference",
      async (ctx) => {
        const run = await openRun(h);
        ctx.skip(
          !run.adapter.capabilities.threads?.reply,
          "capabilities.threads.reply not declared",
        );
        const createThread = run.platform.createThread?.bind(run.platform);
        ctx.skip(!createThread, "the fake platform has no threads (createThread)");
        const group = await run.platform.createTarget("group");
        const thread = await (createThread as NonNullable<typeof createThread>)(group);
        const inbound = await received(run, ctx, thread, "a question inside the thread");
        const { text, receipt } = await replyInParts(run, inbound, "quote");
        const parts = await ours(run, thread);
        expect(normalizeSpace(parts.map((m) => m.text).join(" "))).toBe(normalizeSpace(text));
        expect(receipt.platformMessageIds).toEqual(parts.map((m) => m.id));
        expect(parts[0]?.replyTo).toBe(inbound.platformMessageId);
        expect(await ours(run, group)).toEqual([]);
      },
    );

    // kills: reply relation or thread dropped on chunk 2+
    test(
      "reply.thread-placement",
      "a `thread` reply to a top-level message: part 0 opens the thread under it and parts 1..n stay in it",
      async (ctx) => {
        const run = await openRun(h);
        ctx.skip(
          !run.adapter.capabilities.threads?.reply,
          "capabilities.threads.reply not declared",
        );
        const group = await run.platform.createTarget("group");
        const inbound = await received(run, ctx, group, "answer in a thread please");
        ctx.skip(
          inbound.threadAnchor === undefined,
          "the channel names no thread under a top-level message (inbound threadAnchor): no thread placement",
        );
        const { address, text, receipt } = await replyInParts(run, inbound, "thread");
        expect(address.target.threadId).toBe(inbound.threadAnchor?.threadId);
        const parts = await ours(run, address.target);
        expect(parts.length).toBeGreaterThanOrEqual(3);
        expect(normalizeSpace(parts.map((m) => m.text).join(" "))).toBe(normalizeSpace(text));
        expect(receipt.platformMessageIds).toEqual(parts.map((m) => m.id));
        expect(await ours(run, group)).toEqual([]);
      },
    );
  });
}
