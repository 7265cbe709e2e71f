/**
 * Contract tests: send and receipts, multi-part batches, edit / delete, rendering limits.
 *
 * @module
 */
import { describe, expect } from "vitest";
import type { ContractSuite } from "./registry.ts";
import { maxLengthOf, normalizeSpace, openRun, settled, wordsOfLength } from "./setup.ts";

/** No lone surrogate and no replacement character: the text survived chunking intact. */
function wellFormed(text: string): boolean {
  return text.isWellFormed() && !text.includes("\uFFFD");
}

/** Registers the `send`, `batch`, `edit` and `render` areas. */
export function sendTests(suite: ContractSuite): void {
  const { harness: h, test } = suite;
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
