/**
 * Contract tests: live previews (finalize in place, cancel, long streams), block streaming and
 * typing. A channel that cannot edit skips the preview tests explicitly; block streaming runs
 * everywhere.
 *
 * @module
 */
import { eventually } from "@herald/plugin-sdk/testing";
import { expect } from "vitest";
import { liveCrashTests } from "./liveCrashTests.ts";
import { expectUpdatedInPlace, oneVisible, startLive, typingProbe } from "./liveKit.ts";
import { nativeStreamTests } from "./nativeStreamTests.ts";
import type { ContractSuite, ContractTestContext } from "./registry.ts";
import { type ContractRun, maxLengthOf, normalizeSpace, openRun, wordsOfLength } from "./setup.ts";

function skipUnlessEditable(run: ContractRun, ctx: ContractTestContext): void {
  const live = run.adapter.capabilities.live;
  ctx.skip(
    !live?.edit || !run.adapter.send.edit,
    "the channel cannot edit messages (capabilities.live.edit + send.edit): no previews",
  );
}

/** Registers the `live` area. */
export function liveTests(suite: ContractSuite): void {
  const { harness: h, test, describe } = suite;
  if (suite.has("live"))
    describe("live messages", () => {
      test(
        "live.finalize-in-place",
        "streams a preview, edits it, and finalizes in place: one message with the final text",
        async (ctx) => {
          const run = await openRun(h);
          skipUnlessEditable(run, ctx);
          const { target, live } = await startLive(run, "direct", { idempotencyKey: "live-1" });
          live.update("Thinking");
          const [preview] = await eventually(
            () => run.visible(target),
            (v) => v.length === 1 && normalizeSpace(v[0]?.text ?? "") === "Thinking",
            { what: "the first preview" },
          );
          live.update("Thinking about your question");
          await eventually(
            () => run.visible(target),
            (v) => normalizeSpace(v[0]?.text ?? "") === "Thinking about your question",
            { what: "the edited preview" },
          );
          const receipt = await live.finalize("Here is the answer.");
          const visible = await run.visible(target);
          expect(visible.map((m) => [m.id, normalizeSpace(m.text)])).toEqual([
            [preview?.id, "Here is the answer."],
          ]);
          expect(receipt.primaryPlatformMessageId).toBe(preview?.id);
        },
      );

      test("live.cancel", "cancel deletes the preview: nothing stays visible", async (ctx) => {
        const run = await openRun(h);
        skipUnlessEditable(run, ctx);
        ctx.skip(!run.adapter.send.delete, "the channel cannot delete messages (send.delete)");
        const { target, live } = await startLive(run, "group", { idempotencyKey: "live-2" });
        live.update("Working on it");
        await oneVisible(run, target, "the preview");
        await live.cancel("aborted");
        expect(await run.visible(target)).toEqual([]);
      });

      test(
        "live.long-stream",
        "a stream longer than one message ends as the final's parts, never previews plus copies (C15)",
        async (ctx) => {
          const run = await openRun(h);
          skipUnlessEditable(run, ctx);
          const max = maxLengthOf(run.adapter);
          const { target, live } = await startLive(run, "direct", { idempotencyKey: "live-3" });
          const text = wordsOfLength(max * 2.5, "s");
          for (let end = 40; end < text.length; end += 40) {
            live.update(text.slice(0, end));
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          const receipt = await live.finalize(text);
          const visible = await run.visible(target);
          expect(visible.map((m) => m.id)).toEqual(receipt.platformMessageIds);
          expect(normalizeSpace(visible.map((m) => m.text).join(" "))).toBe(normalizeSpace(text));
        },
      );

      test(
        "live.many-updates",
        "a preview updated three or more times shows the last text, in the first preview's message",
        // kills: edit targeting the previous edit instead of the original
        async (ctx) => {
          const run = await openRun(h);
          skipUnlessEditable(run, ctx);
          const { target, live } = await startLive(run, "direct", { idempotencyKey: "live-many" });
          const steps = ["Step one", "Step one, two", "Step one, two, three", "Step one to four"];
          await expectUpdatedInPlace(run, target, live, steps, "Step one to four, done.", {
            noun: "the preview",
            sameMessage: "every update edits the first preview",
          });
        },
      );

      test(
        "live.fresh-final",
        "a fresh final (preview too old to edit) is sent as a new message; the preview is deleted after it was accepted",
        // kills: preview left after a fresh final
        async (ctx) => {
          const run = await openRun(h);
          skipUnlessEditable(run, ctx);
          ctx.skip(!run.adapter.send.delete, "the channel cannot delete messages (send.delete)");
          // `staleAfterMs: 0`: every preview is already older than the edit window, so core
          // must send the final fresh (core live/finish.ts, "the preview is stale").
          const { target, live } = await startLive(run, "group", {
            idempotencyKey: "live-fresh",
            staleAfterMs: 0,
          });
          live.update("A draft that goes stale");
          const [preview] = await oneVisible(run, target, "the preview");
          const receipt = await live.finalize("The fresh final answer.");
          const visible = await eventually(
            () => run.visible(target),
            (v) => v.length === 1,
            { what: "the preview to be deleted after the fresh final", timeoutMs: 3_000 },
          );
          expect(visible.map((m) => [m.id, normalizeSpace(m.text)])).toEqual([
            [receipt.primaryPlatformMessageId, "The fresh final answer."],
          ]);
          expect(visible[0]?.id, "the final is a new message, not the edited preview").not.toBe(
            preview?.id,
          );
          const intent = await run.intent("live-fresh");
          expect(intent?.status).toBe("sent");
          expect(intent?.operation?.kind ?? "send").toBe("send");
        },
      );

      test(
        "live.block-mode",
        "block mode sends each finished paragraph once, as its own message",
        async () => {
          const run = await openRun(h);
          const { target, live } = await startLive(run, "group", {
            idempotencyKey: "live-4",
            mode: "block",
          });
          live.update("First paragraph.\n\nSecond");
          live.update("First paragraph.\n\nSecond paragraph.\n\nThird");
          await live.finalize("First paragraph.\n\nSecond paragraph.\n\nThird paragraph.");
          const visible = await run.visible(target);
          expect(visible.map((m) => normalizeSpace(m.text))).toEqual([
            "First paragraph.",
            "Second paragraph.",
            "Third paragraph.",
          ]);
        },
      );

      test(
        "live.typing",
        "shows the typing indicator while a live session runs and hides it at the end",
        async (ctx) => {
          const run = await openRun(h);
          const typing = typingProbe(run, ctx);
          const { target, live } = await startLive(run, "direct", {
            idempotencyKey: "live-5",
            mode: "block",
          });
          await eventually(
            () => typing(target),
            (on) => on,
            { what: "the typing indicator" },
          );
          await live.finalize("done");
          await eventually(
            () => typing(target),
            (on) => !on,
            { what: "the indicator to go away" },
          );
        },
      );

      test(
        "live.no-typing-after-stop",
        "no typing indicator shows once the session stopped (finalized or cancelled)",
        // kills: typing after stop
        async (ctx) => {
          const run = await openRun(h);
          const typing = typingProbe(run, ctx);
          // A platform that cannot hide the indicator (no `typing.stop`) lets it lapse by
          // itself: only a reply ends it there, so only the finalize case is checked.
          const ends = run.adapter.live?.typing?.stop
            ? (["finalize", "cancel"] as const)
            : (["finalize"] as const);
          for (const end of ends) {
            const { target, live } = await startLive(run, "direct", {
              idempotencyKey: `live-typing-${end}`,
              mode: "block",
            });
            await eventually(
              () => typing(target),
              (on) => on,
              { what: "the typing indicator" },
            );
            if (end === "finalize") await live.finalize("done");
            else await live.cancel("aborted");
            await eventually(
              () => typing(target),
              (on) => !on,
              { what: `the indicator to go away after ${end}` },
            );
            // Held off: a late refresh (or a start racing the stop) would show it again.
            const until = Date.now() + 400;
            while (Date.now() < until) {
              expect(await typing(target), `typing shown again after ${end}`).toBe(false);
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
          }
        },
      );
    });
  nativeStreamTests(suite);
  liveCrashTests(suite);
}
