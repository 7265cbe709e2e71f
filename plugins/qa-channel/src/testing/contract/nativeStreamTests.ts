/**
 * Contract tests: live mode `native` — the platform's own stream (the live lifecycle
 * `begin` / `update` / `finalize`, or the deprecated `adapter.live.stream`).
 * Finalized in place, the stream message becomes the final; when the stop call fails the final
 * is sent fresh and the stream message deleted — one final visible, its text never doubled
 * (CASES C24). Fakes fault native stream calls as ops `stream_begin` / `stream_append` /
 * `stream_stop`.
 *
 * @module
 */
import { eventually } from "@herald/plugin-sdk/testing";
import { expect } from "vitest";
import { expectUpdatedInPlace, oneVisible, startLive } from "./liveKit.ts";
import type { ContractSuite, ContractTestContext } from "./registry.ts";
import { type ContractRun, normalizeSpace, openRun } from "./setup.ts";

function skipUnlessStreams(run: ContractRun, ctx: ContractTestContext): void {
  const live = run.adapter.live;
  const native = live?.stream !== undefined || (live?.begin && live.update && live.finalize);
  ctx.skip(!native, "the adapter has no native stream (live.begin / update / finalize)");
}

/** Registers the native stream tests (`live` area). */
export function nativeStreamTests(suite: ContractSuite): void {
  const { harness: h, test, describe } = suite;
  if (!suite.has("live")) return;
  describe("native stream", () => {
    test(
      "live.native-finalize-in-place",
      "a native stream grows with the text and is finished in place: one message, the final text once",
      async (ctx) => {
        const run = await openRun(h);
        skipUnlessStreams(run, ctx);
        const { target, live } = await startLive(run, "direct", {
          idempotencyKey: "native-1",
          mode: "native",
          typing: false,
        });
        expect(live.mode).toBe("native");
        const steps = ["Counting", "Counting one", "Counting one two", "Counting one two three"];
        await expectUpdatedInPlace(run, target, live, steps, "Counting one two three, done.", {
          noun: "the stream",
          sameMessage: "the stream grows in one message",
        });
      },
    );

    test(
      "live.native-stop-fails",
      "the stream's stop call fails: the final is sent once, the stream message is gone, no text doubled (C24)",
      async (ctx) => {
        const run = await openRun(h);
        skipUnlessStreams(run, ctx);
        ctx.skip(!run.adapter.send.delete, "the channel cannot delete messages (send.delete)");
        const { target, live } = await startLive(run, "group", {
          idempotencyKey: "native-2",
          mode: "native",
          typing: false,
        });
        live.update("Partial answer");
        const [stream] = await oneVisible(run, target, "the stream message");
        await live.idle();
        // Refused for good (4xx: never applied), however often core retries the stop.
        run.platform.faults.failNext(
          { kind: "status", status: 400, code: "bad_request", description: "stop refused" },
          { op: "stream_stop", times: 50 },
        );
        const final = "Partial answer, completed.";
        const receipt = await live.finalize(final);
        const visible = await eventually(
          () => run.visible(target),
          (v) => !v.some((m) => m.id === stream?.id),
          { what: "the stream message to be deleted", timeoutMs: 3_000 },
        );
        expect(visible.map((m) => [m.id, normalizeSpace(m.text)])).toEqual([
          [receipt.primaryPlatformMessageId, final],
        ]);
      },
    );
  });
}
