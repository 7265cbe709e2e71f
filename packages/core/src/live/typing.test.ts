import { afterEach, describe, expect, it } from "vitest";
import { NotImplementedError } from "../errors.ts";
import type { LiveSession } from "./LiveSession.ts";
import { type LiveHarness, liveHarness } from "./testing/harness.ts";

const TYPING = {
  live: { editRate: { limit: 1, intervalMs: 1_000 }, typing: { refreshMs: 4_000 } },
};

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

describe("typing indicators", () => {
  it("shows typing while the session runs, refreshes it, and hides it when the final is sent", async () => {
    h = await liveHarness({ adapter: TYPING });
    const live = await h.runtime.live(h.target);
    await h.time.settle();
    expect(h.platform.isTyping("dm-1")).toBe(true);
    await h.time.advance(7_000); // the platform lets one call lapse after 5 s; the 4 s refresh keeps it up
    expect(h.platform.isTyping("dm-1")).toBe(true);
    await h.drive(live.finalize("done"));
    await h.time.settle();
    expect(h.platform.isTyping("dm-1")).toBe(false);
    expect(h.visible()).toEqual(["done"]);
  });

  it("stops at the hard TTL counted from the start, even when indicator calls fail", async () => {
    h = await liveHarness({ adapter: TYPING });
    h.platform.failNext({ type: "status", status: 500 }, 2, "typing"); // the calls at 0 s and 4 s fail
    const started = h.time.now();
    const live = await h.runtime.live(h.target, { typing: { ttlMs: 10_000 } });
    await h.time.advance(8_500);
    expect(h.platform.isTyping("dm-1")).toBe(true); // the call at 8 s worked
    await h.time.advance(2_000);
    expect(h.platform.isTyping("dm-1")).toBe(false); // hidden at 10 s, not 8 s + 5 s
    await h.time.advance(30_000);
    expect(h.platform.isTyping("dm-1")).toBe(false);
    const shownAt = h.platform.calls
      .filter((c) => c.op === "typing" && c.on)
      .map((c) => c.at - started);
    expect(Math.max(...shownAt)).toBeLessThan(10_000);
    await live.cancel();
  });

  it("never lets a hanging indicator call delay the preview or the final", async () => {
    h = await liveHarness({ adapter: TYPING });
    const typing = h.runtime.adapter("qa")?.live?.typing;
    if (!typing) throw new Error("fake adapter has typing");
    typing.start = () => new Promise<void>(() => {}); // never answers
    const live = await h.runtime.live(h.target);
    live.update("preview");
    await live.idle();
    expect(h.visible()).toEqual(["preview"]);
    await h.time.advance(1_020);
    await h.drive(live.finalize("final"));
    expect(h.visible()).toEqual(["final"]);
  });

  const exits: Array<[string, (live: LiveSession) => Promise<unknown>]> = [
    ["cancel on error", (live) => live.cancel("error")],
    ["silent end", (live) => live.finalize("")],
    ["dispose without finalize", (live) => live[Symbol.asyncDispose]()],
    ["a final that fails", (live) => live.finalize("x").catch(() => {})],
  ];
  it.each(exits)("hides the indicator on every exit path: %s", async (_name, exit) => {
    h = await liveHarness({ adapter: TYPING });
    const live = await h.runtime.live(h.target, { staleAfterMs: 0 });
    live.update("preview");
    await live.idle();
    expect(h.platform.isTyping("dm-1")).toBe(true);
    h.platform.failNext({ type: "status", status: 403 }, 1, "send");
    await h.drive(exit(live));
    await h.time.settle();
    expect(h.platform.isTyping("dm-1")).toBe(false);
  });

  it("runtime.typing: stop is idempotent and the handle reports it", async () => {
    h = await liveHarness({ adapter: TYPING });
    const handle = h.runtime.typing(h.target);
    await h.time.settle();
    expect(handle.active).toBe(true);
    expect(h.platform.isTyping("dm-1")).toBe(true);
    await handle.stop();
    await handle.stop();
    expect(handle.active).toBe(false);
    expect(h.platform.isTyping("dm-1")).toBe(false);
  });

  it("runtime.typing says so when the channel has no indicator", async () => {
    h = await liveHarness();
    expect(() => h?.runtime.typing(h.target)).toThrow(NotImplementedError);
  });
});
