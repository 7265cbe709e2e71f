/**
 * Contract tests: inbound through the channel's real receive path — normalization, own echoes,
 * tagged herald echoes (origin), dedupe of redeliveries.
 *
 * @module
 */
import { gatewayFailureOrigin } from "@herald/plugin-sdk/channel-message";
import { eventually } from "@herald/plugin-sdk/testing";
import { expect } from "vitest";
import { accountTests } from "./accountTests.ts";
import { inboundCrashTests } from "./inboundCrashTests.ts";
import { inboundRun, outcomeFor } from "./inboundRun.ts";
import type { ContractSuite } from "./registry.ts";
import { normalizeSpace } from "./setup.ts";
import { webhookAuthTests } from "./webhookAuthTests.ts";

/** Registers the `receive`, `origin` and `dedupe` areas (through the channel's real receiver). */
export function inboundTests(suite: ContractSuite): void {
  const { harness: h, test, describe } = suite;
  if (suite.has("receive"))
    describe("receive", () => {
      test(
        "receive.normalize",
        "hands a person's message to the handler with its text, sender and conversation",
        async (ctx) => {
          const run = await inboundRun(h, ctx);
          const target = await run.platform.createTarget("group");
          const { platformMessageId } = await run.inbound.post(target, {
            text: "hi bot, how are you?",
          });
          const outcome = await outcomeFor(run, platformMessageId);
          expect(outcome.status).toBe("processed");
          const [turn] = run.handled;
          expect(turn?.input).toMatchObject({
            direction: "inbound",
            channel: run.adapter.id,
            platformMessageId,
          });
          expect(normalizeSpace(turn?.input.body?.markdown ?? "")).toBe("hi bot, how are you?");
          expect(turn?.input.target.id).toBe(target.id);
          expect(turn?.event.isBotAuthor).toBe(false);
          expect(turn?.event.isRoomish).toBe(true);
        },
      );

      test(
        "receive.several-conversations",
        "processes messages from several conversations, each exactly once",
        async (ctx) => {
          const run = await inboundRun(h, ctx);
          const a = await run.platform.createTarget("direct");
          const b = await run.platform.createTarget("group");
          const ids = [
            (await run.inbound.post(a, { text: "one" })).platformMessageId,
            (await run.inbound.post(b, { text: "two" })).platformMessageId,
            (await run.inbound.post(a, { text: "three" })).platformMessageId,
          ];
          for (const id of ids) expect((await outcomeFor(run, id)).status).toBe("processed");
          expect(run.handled.map((t) => t.input.platformMessageId).sort()).toEqual([...ids].sort());
        },
      );
    });

  if (suite.has("receive"))
    describe("receiver reconnect", () => {
      test(
        "receive.reconnect",
        "the platform drops every connection; the receiver reconnects, and events delivered again are handled once",
        async (ctx) => {
          const run = await inboundRun(h, ctx);
          const drop = run.platform.faults.dropConnections?.bind(run.platform.faults);
          ctx.skip(!drop, "the fake platform cannot drop connections (faults.dropConnections)");
          ctx.skip(
            run.inbound.connectWebhook !== undefined,
            "webhook receiver: the platform opens a request per event, no connection to drop",
          );
          const target = await run.platform.createTarget("group");
          const first = await run.inbound.post(target, { text: "before the blip" });
          expect((await outcomeFor(run, first.platformMessageId)).status).toBe("processed");
          (drop as () => void)();
          const second = await run.inbound.post(target, { text: "after the blip" });
          expect((await outcomeFor(run, second.platformMessageId)).status).toBe("processed");
          // Dropped again while nothing is pending, then an old event comes back.
          (drop as () => void)();
          await run.inbound.redeliver(first.platformMessageId);
          const third = await run.inbound.post(target, { text: "after the second blip" });
          expect((await outcomeFor(run, third.platformMessageId)).status).toBe("processed");
          await eventually(
            () => run.outcomes.filter((o) => o.status === "duplicate").length,
            (n) => n >= 1,
            { what: "the redelivered event to be answered as a duplicate" },
          );
          expect(run.handled.map((t) => t.input.platformMessageId)).toEqual([
            first.platformMessageId,
            second.platformMessageId,
            third.platformMessageId,
          ]);
        },
      );
    });

  webhookAuthTests(suite);
  accountTests(suite);
  inboundCrashTests(suite);

  if (suite.has("origin"))
    describe("origin and echoes", () => {
      test(
        "origin.own-echo",
        "drops its own messages echoed back by the platform before the handler",
        async (ctx) => {
          const run = await inboundRun(h, ctx);
          const target = await run.platform.createTarget("group");
          const { platformMessageId } = await run.inbound.post(target, {
            text: "my own words",
            author: "self",
          });
          const outcome = await outcomeFor(run, platformMessageId);
          expect(outcome).toMatchObject({ status: "dropped", reason: "self" });
          expect(run.handled).toEqual([]);
        },
      );

      test(
        "origin.other-bot-not-self",
        "another bot is not us: with allowBots its message reaches the handler, while our own echo beside it is dropped",
        async (ctx) => {
          // kills: a self check that takes any bot author (or another bot's id) for ours
          const run = await inboundRun(h, ctx, { receive: { allowBots: true } });
          const room = await run.platform.createTarget("group");
          const other = await run.inbound.post(room, {
            text: "another bot speaks",
            author: "other_bot",
          });
          const own = await run.inbound.post(room, { text: "my own words", author: "self" });
          expect((await outcomeFor(run, other.platformMessageId)).status).toBe("processed");
          expect(await outcomeFor(run, own.platformMessageId)).toMatchObject({
            status: "dropped",
            reason: "self",
          });
          expect(run.handled.map((t) => t.input.platformMessageId)).toEqual([
            other.platformMessageId,
          ]);
        },
      );

      test(
        "origin.tagged-echo",
        "drops a bot's room echo tagged as a herald gateway failure before allowBots; the same text untagged is processed",
        async (ctx) => {
          const run = await inboundRun(h, ctx, { receive: { allowBots: true } });
          ctx.skip(!run.inbound.nativeOrigin, "the channel has no native origin metadata");
          const room = await run.platform.createTarget("group");
          const text = "Agent failed before reply";
          const tagged = await run.inbound.post(room, {
            text,
            author: "other_bot",
            origin: gatewayFailureOrigin("agent_failed_before_reply"),
          });
          expect(await outcomeFor(run, tagged.platformMessageId)).toMatchObject({
            status: "dropped",
            reason: "herald_echo",
          });
          const untagged = await run.inbound.post(room, { text, author: "other_bot" });
          expect((await outcomeFor(run, untagged.platformMessageId)).status).toBe("processed");
          expect(run.handled.map((t) => t.input.platformMessageId)).toEqual([
            untagged.platformMessageId,
          ]);
        },
      );
    });

  if (suite.has("dedupe"))
    describe("inbound dedupe", () => {
      // kills: dedupe per delivery instead of per message (`redeliver` uses a new delivery id)
      test("dedupe.redelivery", "processes a redelivered message once", async (ctx) => {
        const run = await inboundRun(h, ctx);
        const target = await run.platform.createTarget("direct");
        const { platformMessageId } = await run.inbound.post(target, { text: "deliver me twice" });
        expect((await outcomeFor(run, platformMessageId)).status).toBe("processed");
        await run.inbound.redeliver(platformMessageId);
        await eventually(
          () => run.outcomes.filter((o) => o.status === "duplicate").length,
          (n) => n >= 1,
          {
            what: "the redelivery to be answered as a duplicate",
          },
        );
        expect(run.handled).toHaveLength(1);
      });

      test(
        "dedupe.redelivery-in-flight",
        "processes a message redelivered while its first processing still runs once (C09)",
        async (ctx) => {
          let release: () => void = () => {};
          const gate = new Promise<void>((resolve) => {
            release = resolve;
          });
          const run = await inboundRun(h, ctx, { handler: () => gate });
          const target = await run.platform.createTarget("direct");
          const { platformMessageId } = await run.inbound.post(target, { text: "slow one" });
          await eventually(
            () => run.handled.length,
            (n) => n === 1,
            { what: "the first dispatch" },
          );
          await run.inbound.redeliver(platformMessageId);
          await eventually(
            () => run.deliveries,
            (n) => n >= 2,
            { what: "the redelivery to arrive" },
          );
          release();
          await eventually(
            () => run.outcomes.length,
            (n) => n >= 2,
            { what: "both deliveries to settle" },
          );
          expect(run.outcomes.map((o) => o.status).sort()).toEqual(["duplicate", "processed"]);
          expect(run.handled).toHaveLength(1);
        },
      );
    });
}
