/**
 * Contract tests: send and receipts, multi-part batches, edit / delete, rendering limits.
 *
 * @module
 */
import { gatewayFailureOrigin, type MessageTarget } from "@herald/plugin-sdk/channel-message";
import { eventually } from "@herald/plugin-sdk/testing";
import { expect } from "vitest";
import type { ContractSuite } from "./registry.ts";
import {
  type ContractRun,
  maxLengthOf,
  normalizeSpace,
  openRun,
  settled,
  wordsOfLength,
} from "./setup.ts";

/** No lone surrogate and no replacement character: the text survived chunking intact. */
function wellFormed(text: string): boolean {
  return text.isWellFormed() && !text.includes("\uFFFD");
}

const texts = async (run: ContractRun, target: MessageTarget) =>
  (await run.visible(target)).map((m) => normalizeSpace(m.text));

/** Registers the `send`, `batch`, `edit`, `render` areas and origin on send. */
export function sendTests(suite: ContractSuite): void {
  const { harness: h, test, describe } = suite;
  if (suite.has("send"))
    describe("send and receipts", () => {
      test(
        "send.receipt",
        "delivers a message and returns a receipt naming the visible message",
        async () => {
          const run = await openRun(h);
          const target = await run.platform.createTarget("group");
          const receipt = await run.runtime.send(
            run.message(target, "hello from the contract suite"),
          );
          const visible = await run.visible(target);
          expect(visible.map((m) => normalizeSpace(m.text))).toEqual([
            "hello from the contract suite",
          ]);
          expect(receipt.primaryPlatformMessageId).toBe(visible[0]?.id);
          expect(receipt.platformMessageIds).toEqual([visible[0]?.id]);
        },
      );

      test(
        "send.idempotency-key-repeat",
        "returns the first receipt for a repeated idempotency key and sends nothing again",
        async () => {
          const run = await openRun(h);
          const target = await run.platform.createTarget("direct");
          const first = await run.runtime.send(run.message(target, "only once"), {
            idempotencyKey: "k1",
          });
          const again = await run.runtime.send(run.message(target, "only once"), {
            idempotencyKey: "k1",
          });
          expect(again.platformMessageIds).toEqual(first.platformMessageIds);
          expect(await run.visible(target)).toHaveLength(1);
        },
      );

      test(
        "send.thread",
        "replies inside a thread: the message lands in the thread, not the conversation",
        async (ctx) => {
          const run = await openRun(h);
          const createThread = run.platform.createThread?.bind(run.platform);
          ctx.skip(!createThread, "the fake platform has no threads (createThread)");
          const group = await run.platform.createTarget("group");
          const thread = await (createThread as NonNullable<typeof createThread>)(group);
          const before = await run.visible(group);
          const receipt = await run.runtime.send(run.message(thread, "in the thread"));
          expect((await run.visible(thread)).map((m) => m.id)).toContain(
            receipt.primaryPlatformMessageId,
          );
          expect(await run.visible(group)).toEqual(before);
        },
      );

      // kills: idempotency key reused across operations
      test(
        "send.distinct-operations",
        "two sends of the same text with default keys are two messages; an edit after them changes only its target",
        async (ctx) => {
          const run = await openRun(h);
          const target = await run.platform.createTarget("group");
          const first = await run.runtime.send(run.message(target, "same words"));
          const second = await run.runtime.send(run.message(target, "same words"));
          expect(second.primaryPlatformMessageId).not.toBe(first.primaryPlatformMessageId);
          expect(await texts(run, target)).toEqual(["same words", "same words"]);
          ctx.skip(!run.adapter.send.edit, "the adapter cannot edit (send.edit)");
          await run.runtime.edit(second, run.message(target, "changed"));
          const third = await run.runtime.send(run.message(target, "same words"));
          const visible = await run.visible(target);
          expect(visible.map((m) => [m.id, normalizeSpace(m.text)])).toEqual([
            [first.primaryPlatformMessageId, "same words"],
            [second.primaryPlatformMessageId, "changed"],
            [third.primaryPlatformMessageId, "same words"],
          ]);
        },
      );

      // DESIGN §12 "Receipt ids are unique": the adapter reports the id the platform answered
      // (never one it made up), and core refuses it for a second unit.
      test(
        "send.receipt-conflict",
        "a send answered with an earlier message's id is held (receipt_conflict), never sent with it (C40)",
        async () => {
          const run = await openRun(h);
          const target = await run.platform.createTarget("group");
          const first = await run.runtime.send(run.message(target, "the first"), {
            idempotencyKey: "c40-1",
          });
          // A cache in front of the platform answers the next send with the first's answer.
          run.platform.faults.failNext({ kind: "repeat_answer" }, { op: "send" });
          await run.runtime.enqueue(run.message(target, "the second"), {
            idempotencyKey: "c40-2",
          });
          const held = await eventually(
            () => run.intent("c40-2"),
            (i) => i?.status === "unknown_after_send" || i?.status === "sent",
            { what: "the second send to settle" },
          );
          expect(held?.status).toBe("unknown_after_send");
          expect(held?.failure).toMatchObject({
            reason: "receipt_conflict",
            receiptConflict: {
              platformMessageId: first.primaryPlatformMessageId,
              heldByIntentId: (await run.intent("c40-1"))?.id,
            },
          });
          expect((await run.intent("c40-1"))?.status).toBe("sent");
          expect(await texts(run, target)).toEqual(["the first"]);
        },
      );
    });

  if (suite.has("send"))
    describe("attachments", () => {
      test(
        "send.attachment-remote-url",
        "a message with a remote-URL image and text: the platform stores the image from that URL and shows the text",
        async (ctx) => {
          const run = await openRun(h);
          ctx.skip(
            !run.adapter.capabilities.attachments?.remoteUrl,
            "capabilities.attachments.remoteUrl not declared",
          );
          const attachmentsOf = run.platform.attachmentsOf?.bind(run.platform);
          ctx.skip(!attachmentsOf, "the fake platform does not expose attachments (attachmentsOf)");
          const read = attachmentsOf as NonNullable<typeof attachmentsOf>;
          const target = await run.platform.createTarget("group");
          const url = "http://127.0.0.1:9/cat.png";
          const receipt = await run.runtime.send(
            run.message(target, "a cat", { attachments: [{ kind: "image", url }] }),
          );
          const visible = await run.visible(target);
          expect(receipt.platformMessageIds).toEqual(visible.map((m) => m.id));
          expect(visible.flatMap((m) => read(m).map((a) => a.source))).toEqual([url]);
          expect(normalizeSpace(visible.map((m) => m.text).join(" "))).toBe("a cat");
        },
      );
    });

  if (suite.has("origin"))
    describe("origin on send", () => {
      // kills: origin not encoded on send
      test(
        "origin.stored-on-send",
        "a message sent with a herald origin carries it on the platform (read from the platform's stored message)",
        async (ctx) => {
          const run = await openRun(h);
          const storedOrigin = run.platform.storedOrigin?.bind(run.platform);
          ctx.skip(
            !storedOrigin,
            "the platform stores no message metadata (platform.storedOrigin): origins cannot travel natively",
          );
          const read = storedOrigin as NonNullable<typeof storedOrigin>;
          const target = await run.platform.createTarget("group");
          const origin = gatewayFailureOrigin("agent_failed_before_reply");
          const max = maxLengthOf(run.adapter);
          await run.runtime.send(run.message(target, wordsOfLength(max * 1.5, "o"), { origin }));
          await run.runtime.send(run.message(target, "no origin here"));
          const visible = await run.visible(target);
          expect(visible.length).toBeGreaterThanOrEqual(3);
          const tagged = visible.slice(0, -1);
          for (const m of tagged) expect(read(m), `part ${m.id}`).toEqual(origin);
          expect(read(visible.at(-1) as (typeof visible)[number])).toBeUndefined();
        },
      );
    });

  if (suite.has("batch"))
    describe("multi-part batches", () => {
      test(
        "batch.receipts",
        "splits a long text into parts within the limit, in order, with every id in the receipt",
        async () => {
          const run = await openRun(h);
          const max = maxLengthOf(run.adapter);
          const text = wordsOfLength(max * 2.5, "w");
          const target = await run.platform.createTarget("group");
          const receipt = await run.runtime.send(run.message(target, text));
          const visible = await run.visible(target);
          expect(visible.length).toBeGreaterThanOrEqual(3);
          for (const m of visible) expect(m.text.length).toBeLessThanOrEqual(max);
          expect(normalizeSpace(visible.map((m) => m.text).join(" "))).toBe(normalizeSpace(text));
          expect(receipt.platformMessageIds).toEqual(visible.map((m) => m.id));
          expect(receipt.primaryPlatformMessageId).toBe(visible[0]?.id);
        },
      );

      test(
        "batch.retry-missing-parts",
        "after a part fails before reaching the platform, the retry sends only the missing parts",
        async () => {
          const run = await openRun(h);
          const max = maxLengthOf(run.adapter);
          const text = wordsOfLength(max * 2.5, "p");
          const target = await run.platform.createTarget("group");
          // The first part lands; the second is refused with a 429 (provably not dispatched).
          run.platform.faults.failNext(
            { kind: "rate_limit", retryAfterMs: 60 },
            { op: "send", skip: 1 },
          );
          await run.runtime.enqueue(run.message(target, text), { idempotencyKey: "batch" });
          const intent = await settled(run, "batch");
          expect(intent.status).toBe("sent");
          const visible = await run.visible(target);
          expect(normalizeSpace(visible.map((m) => m.text).join(" "))).toBe(normalizeSpace(text));
          expect(intent.receipt?.platformMessageIds).toEqual(visible.map((m) => m.id));
        },
      );
    });

  if (suite.has("edit"))
    describe("edit and delete", () => {
      test("edit.in-place", "edits a delivered message in place", async (ctx) => {
        const run = await openRun(h);
        ctx.skip(!run.adapter.send.edit, "the adapter cannot edit (send.edit)");
        const target = await run.platform.createTarget("group");
        const receipt = await run.runtime.send(run.message(target, "first version"));
        await run.runtime.edit(receipt, run.message(target, "second version"));
        const visible = await run.visible(target);
        expect(visible.map((m) => [m.id, normalizeSpace(m.text)])).toEqual([
          [receipt.primaryPlatformMessageId, "second version"],
        ]);
      });

      // kills: edit targeting the previous edit instead of the original
      test(
        "edit.twice-from-receipt",
        "edits twice, each time with the receipt the last call returned: both edits change the original message",
        async (ctx) => {
          const run = await openRun(h);
          ctx.skip(!run.adapter.send.edit, "the adapter cannot edit (send.edit)");
          const target = await run.platform.createTarget("group");
          const sent = await run.runtime.send(run.message(target, "version one"));
          const edited = await run.runtime.edit(sent, run.message(target, "version two"));
          expect(edited.primaryPlatformMessageId).toBe(sent.primaryPlatformMessageId);
          expect(edited.platformMessageIds).toEqual(sent.platformMessageIds);
          const again = await run.runtime.edit(edited, run.message(target, "version three"));
          expect(again.primaryPlatformMessageId).toBe(sent.primaryPlatformMessageId);
          const visible = await run.visible(target);
          expect(visible.map((m) => [m.id, normalizeSpace(m.text)])).toEqual([
            [sent.primaryPlatformMessageId, "version three"],
          ]);
          expect(visible[0]?.history.map(normalizeSpace)).toEqual([
            "version one",
            "version two",
            "version three",
          ]);
        },
      );

      test(
        "edit.shorter-multi-part",
        "edits a multi-part message to a shorter text: the first part is edited, the rest deleted",
        async (ctx) => {
          const run = await openRun(h);
          ctx.skip(
            !run.adapter.send.edit || !run.adapter.send.delete,
            "the adapter cannot edit and delete",
          );
          const max = maxLengthOf(run.adapter);
          const target = await run.platform.createTarget("group");
          const receipt = await run.runtime.send(run.message(target, wordsOfLength(max * 2, "e")));
          expect(receipt.platformMessageIds.length).toBeGreaterThanOrEqual(2);
          await run.runtime.edit(receipt, run.message(target, "short now"));
          const visible = await run.visible(target);
          expect(visible.map((m) => [m.id, normalizeSpace(m.text)])).toEqual([
            [receipt.primaryPlatformMessageId, "short now"],
          ]);
        },
      );

      test(
        "edit.delete-all-parts",
        "deletes every part of a message, and deleting it again is not an error",
        async (ctx) => {
          const run = await openRun(h);
          ctx.skip(!run.adapter.send.delete, "the adapter cannot delete (send.delete)");
          const max = maxLengthOf(run.adapter);
          const target = await run.platform.createTarget("group");
          const receipt = await run.runtime.send(run.message(target, wordsOfLength(max * 2, "d")));
          await run.runtime.delete(receipt, run.message(target, ""));
          expect(await run.visible(target)).toEqual([]);
          await run.runtime.delete(receipt, run.message(target, ""), {
            idempotencyKey: "delete-again",
          });
          expect(await run.visible(target)).toEqual([]);
        },
      );
    });

  if (suite.has("render"))
    describe("rendering limits", () => {
      test(
        "render.surrogate-pairs",
        "keeps every part within the limit and never splits a surrogate pair (C16)",
        async () => {
          const run = await openRun(h);
          const max = maxLengthOf(run.adapter);
          const text = `${"😀".repeat(max)} end`;
          const target = await run.platform.createTarget("group");
          await run.runtime.send(run.message(target, text));
          const visible = await run.visible(target);
          for (const m of visible) {
            expect(m.text.length).toBeLessThanOrEqual(max);
            expect(wellFormed(m.text)).toBe(true);
          }
          expect(
            visible
              .map((m) => m.text)
              .join("")
              .replace(/\s/g, ""),
          ).toBe(text.replace(/\s/g, ""));
        },
      );

      // kills: chunk limit above the platform maximum
      test(
        "render.platform-max",
        "with the adapter's default config, a text of the platform's real maximum is one part and one more unit is two, each within it",
        async (ctx) => {
          const limits = h.platformLimits;
          ctx.skip(!limits, "the harness declares no platformLimits: the real maximum is unknown");
          const run = await openRun(h, { platform: { adapterDefaults: true } });
          const max = (limits as NonNullable<typeof limits>).maxLength;
          expect(
            maxLengthOf(run.adapter),
            "the default text limit must not exceed the platform's",
          ).toBeLessThanOrEqual(max);
          const target = await run.platform.createTarget("group");
          const full = "x".repeat(max);
          const one = await run.runtime.send(run.message(target, full));
          expect(one.platformMessageIds).toHaveLength(1);
          expect((await run.visible(target)).map((m) => m.text)).toEqual([full]);
          const over = await run.platform.createTarget("group");
          const two = await run.runtime.send(run.message(over, `${full}y`));
          const parts = await run.visible(over);
          expect(two.platformMessageIds).toEqual(parts.map((m) => m.id));
          expect(parts).toHaveLength(2);
          for (const m of parts) expect(m.text.length).toBeLessThanOrEqual(max);
          expect(parts.map((m) => m.text).join("")).toBe(`${full}y`);
        },
      );

      test(
        "render.hard-split",
        "hard-splits one word longer than the limit into parts within the limit (C17)",
        async () => {
          const run = await openRun(h);
          const max = maxLengthOf(run.adapter);
          const text = "x".repeat(Math.floor(max * 2.2));
          const target = await run.platform.createTarget("group");
          await run.runtime.send(run.message(target, text));
          const visible = await run.visible(target);
          expect(visible.length).toBe(3);
          for (const m of visible) expect(m.text.length).toBeLessThanOrEqual(max);
          expect(visible.map((m) => m.text).join("")).toBe(text);
        },
      );
    });
}
