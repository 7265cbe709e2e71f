/**
 * [H14] item 9 on Telegram: a preview whose send outcome was unknown (reset after Telegram
 * stored it) is reconciled by the probe with the unit that was sent — on the old code the probe
 * got `payload: null`, threw a TypeError that was swallowed, and the preview stayed visible
 * next to the final.
 */
import { eventually } from "@herald/plugin-sdk/testing";
import { expect, it } from "vitest";
import { openBench } from "./testing/bench.ts";

it("an in-doubt preview is found by the probe and becomes the final: no copy stays", async () => {
  const b = await openBench({ config: { reconcile: "probe" } });
  const { chat, target } = b.dm();
  await b.runtime.send(b.message(target, "first")); // the probe only looks where we sent before
  b.fake.failNext({ kind: "reset_after_accept" }, { op: "send" });
  const live = await b.runtime.live({ channel: "telegram", target }, { idempotencyKey: "doubt" });
  live.update("Thinking");
  await eventually(
    () => b.fake.messages(chat.id),
    (v) => v.length === 2,
    { what: "the preview whose answer was lost" },
  );
  await live.idle();
  await live.finalize("Final answer");
  expect(b.fake.messages(chat.id).map((m) => m.text)).toEqual(["first", "Final answer"]);
});
