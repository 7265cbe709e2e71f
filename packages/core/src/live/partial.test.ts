import { afterEach, describe, expect, it } from "vitest";
import { type LiveHarness, liveHarness } from "./testing/harness.ts";

/** One edit interval (1 s) plus the rate-limit scheduler's margin. */
const INTERVAL = 1_020;

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

describe("partial previews", () => {
  it("sends a preview, edits it as the text grows, and finalizes in place as one message", async () => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target, { idempotencyKey: "reply:1" });
    live.update("Hel");
    await live.idle();
    expect(h.visible()).toEqual(["Hel"]);
    await h.time.advance(INTERVAL);
    live.update("Hello wor");
    await live.idle();
    expect(h.visible()).toEqual(["Hello wor"]);
    await h.time.advance(INTERVAL);
    const receipt = await h.drive(live.finalize("Hello world!"));
    expect(h.visible()).toEqual(["Hello world!"]);
    expect(receipt.platformMessageIds).toEqual(h.platform.visible("dm-1").map((m) => m.id));
    const final = await h.store.getIntentByIdempotencyKey("reply:1");
    expect(final).toMatchObject({ status: "sent", operation: { kind: "edit" } });
    const liveIntent = await h.store.getIntentByIdempotencyKey("reply:1:live");
    expect(liveIntent).toMatchObject({
      status: "cancelled",
      liveState: { phase: "done", outcome: "finalized" },
    });
  });

  it("coalesces updates inside the edit interval: only the newest text is shown (last write wins)", async () => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target);
    live.update("one");
    await live.idle();
    live.update("one two");
    live.update("one two three");
    await h.time.advance(500);
    expect(h.visible()).toEqual(["one"]); // 1 edit per second per chat
    live.update("one two three four");
    await h.time.advance(INTERVAL - 500);
    await live.idle();
    expect(h.visible()).toEqual(["one two three four"]);
    const texts = h.platform.calls
      .filter((c) => c.op === "edit")
      .map((c) => (c as { text: string }).text);
    expect(texts).toEqual(["one two three four"]); // the intermediate texts never went out
  });

  it("C14: skips an unchanged render before calling the platform, so the next change is not delayed", async () => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target);
    live.update("same");
    await live.idle();
    await h.time.advance(INTERVAL);
    live.update({ text: "same", progress: "ignored once text exists" });
    await live.idle();
    // Had the identical render been sent, it would have used this second's edit token.
    live.update("same, and more");
    await live.idle();
    expect(h.visible()).toEqual(["same, and more"]);
  });

  it("C14: a platform 'message is not modified' answer is a successful no-op", async () => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target);
    live.update("draft");
    await live.idle();
    // Someone (an earlier process) already set the text we are about to write.
    const m = h.platform.visible("dm-1")[0];
    if (m) m.text = "draft 2";
    await h.time.advance(INTERVAL);
    live.update("draft 2");
    await live.idle();
    await h.time.advance(INTERVAL);
    live.update("draft 3");
    await live.idle();
    expect(h.visible()).toEqual(["draft 3"]);
    expect(live.state.canFinalizeInPlace).toBe(true);
  });

  it("C06: a preview edit answered 429 Retry-After 3 waits, then sends only the newest text; the final lands", async () => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target);
    live.update("a");
    await live.idle();
    await h.time.advance(INTERVAL);
    h.platform.failNext(
      { type: "status", status: 429, code: "ratelimited", retryAfterS: 3 },
      1,
      "edit",
    );
    live.update("ab");
    await live.idle();
    expect(h.visible()).toEqual(["a"]); // never counted as delivered
    live.update("abc");
    await h.time.advance(2_000);
    live.update("abcd");
    await h.time.advance(900);
    expect(h.visible()).toEqual(["a"]); // still inside the retry-after
    await h.time.advance(200);
    await live.idle();
    expect(h.visible()).toEqual(["abcd"]);
    await h.time.advance(INTERVAL);
    await h.drive(live.finalize("abcd!"));
    expect(h.visible()).toEqual(["abcd!"]);
  });

  it("shows the progress line until the first text arrives", async () => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target);
    live.update({ progress: "Thinking…" });
    await live.idle();
    expect(h.visible()).toEqual(["Thinking…"]);
    await h.time.advance(INTERVAL);
    live.update("The answer");
    await live.idle();
    expect(h.visible()).toEqual(["The answer"]);
    await h.time.advance(INTERVAL);
    await h.drive(live.finalize());
    expect(h.visible()).toEqual(["The answer"]);
  });
});
