/**
 * CASES.md C12–C15 (live previews), asserted on what the fake platform shows.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { PlatformCall } from "../testing/fakePlatform.ts";
import { type LiveHarness, liveHarness } from "./testing/harness.ts";

/** One edit interval (1 s) plus the rate-limit scheduler's margin. */
const INTERVAL = 1_020;

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

describe("C12: preview without an id (Telegram DM)", () => {
  it("keeps the id-less preview as the final when the final equals it: one visible message", async () => {
    h = await liveHarness();
    h.platform.failNext({ type: "omit-id" }, 1, "send");
    const live = await h.runtime.live(h.target, { idempotencyKey: "reply:c12" });
    live.update("Hello world");
    await live.idle();
    await h.time.advance(INTERVAL);
    const receipt = await h.drive(live.finalize("Hello world"));
    expect(h.visible()).toEqual(["Hello world"]);
    expect(receipt.parts).toHaveLength(1);
    expect(await h.store.getIntentByIdempotencyKey("reply:c12")).toMatchObject({ status: "sent" });
  });

  it("looks the id up when the channel can reconcile, then edits the preview into the final", async () => {
    h = await liveHarness({ adapter: { reconcile: true } });
    h.platform.failNext({ type: "omit-id" }, 1, "send");
    const live = await h.runtime.live(h.target);
    live.update("Hello");
    await live.idle();
    await h.time.advance(INTERVAL);
    live.update("Hello wor");
    await live.idle();
    expect(h.visible()).toEqual(["Hello wor"]);
    await h.time.advance(INTERVAL);
    await h.drive(live.finalize("Hello world"));
    expect(h.visible()).toEqual(["Hello world"]);
  });

  it("never leaves a copy of the preview: an id-less preview that differs stays, the final is sent once", async () => {
    h = await liveHarness();
    h.platform.failNext({ type: "omit-id" }, 1, "send");
    const live = await h.runtime.live(h.target);
    live.update("Hel");
    await live.idle();
    await h.time.advance(INTERVAL);
    live.update("Hello wor"); // cannot be shown: the preview cannot be edited
    await live.idle();
    await h.time.advance(INTERVAL);
    await h.drive(live.finalize("Hello world"));
    // The platform gave no way to edit or delete "Hel"; it is not a copy of the final.
    expect(h.visible()).toEqual(["Hel", "Hello world"]);
  });
});

describe("C13: editing a stale preview (Telegram)", () => {
  it("sends the final fresh when the final edit answers 'message to edit not found'", async () => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target);
    live.update("draft");
    await live.idle();
    const preview = h.platform.visible("dm-1")[0];
    if (preview) preview.deleted = true; // the user deleted it
    await h.time.advance(INTERVAL);
    await h.drive(live.finalize("final"));
    expect(h.visible()).toEqual(["final"]);
  });

  it("falls back to a fresh final when the channel does not replace a lost edit target itself", async () => {
    h = await liveHarness({ adapter: { freshSendOnEditNotFound: false } });
    const live = await h.runtime.live(h.target, { idempotencyKey: "reply:c13" });
    live.update("draft");
    await live.idle();
    const preview = h.platform.visible("dm-1")[0];
    if (preview) preview.deleted = true;
    await h.time.advance(INTERVAL);
    await h.drive(live.finalize("final"));
    expect(h.visible()).toEqual(["final"]);
    const fresh = await h.store.getIntentByIdempotencyKey("reply:c13:fresh");
    expect(fresh).toMatchObject({ status: "sent" });
    // A re-run under the key finds that final and sends nothing.
    const again = await h.runtime.live(h.target, { idempotencyKey: "reply:c13" });
    expect(await again.finalize("final")).toEqual(fresh?.receipt);
    expect(h.visible()).toEqual(["final"]);
  });

  it.each([
    ["429 retry_after 1", { type: "status", status: 429, code: "rate_limited", retryAfterS: 1 }],
    ["502 (maybe applied)", { type: "status", status: 502, code: "bad_gateway" }],
    ["reset after the edit applied", { type: "accept-then-drop" }],
  ] as const)("retries the final edit after %s instead of sending fresh", async (_name, fault) => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target);
    live.update("draft");
    await live.idle();
    const previewId = h.platform.visible("dm-1")[0]?.id;
    await h.time.advance(INTERVAL);
    h.platform.failNext(fault, 1, "edit");
    const receipt = await h.drive(live.finalize("final"));
    expect(h.visible()).toEqual(["final"]);
    expect(receipt.platformMessageIds).toEqual([previewId]);
  });

  it("sends a stale preview's final fresh and deletes the preview only after the final was accepted", async () => {
    h = await liveHarness({
      adapter: { live: { editRate: { limit: 1, intervalMs: 1_000 }, staleAfterMs: 60_000 } },
    });
    const live = await h.runtime.live(h.target);
    live.update("draft");
    await live.idle();
    const previewId = h.platform.visible("dm-1")[0]?.id;
    await h.time.advance(61_000);
    const seenAtFinalSend: string[][] = [];
    const call = h.platform.call.bind(h.platform);
    h.platform.call = (c: PlatformCall) => {
      if (c.op === "send") seenAtFinalSend.push(h?.visible() ?? []);
      return call(c);
    };
    const receipt = await h.drive(live.finalize("final"));
    expect(seenAtFinalSend).toEqual([["draft"]]); // the preview was still there when the final went out
    expect(h.visible()).toEqual(["final"]);
    expect(receipt.platformMessageIds).not.toContain(previewId);
  });
});

describe("C14: not modified (Telegram)", () => {
  it("keeps a preview that already shows the final: one message, no edit", async () => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target);
    live.update("All done.");
    await live.idle();
    const edits = h.platform.calls.filter((c) => c.op === "edit").length;
    await h.drive(live.finalize("All done."));
    expect(h.visible()).toEqual(["All done."]);
    expect(h.platform.calls.filter((c) => c.op === "edit").length).toBe(edits);
  });
});

describe("C15: long stream (Telegram, 4096 per message)", () => {
  const c1 = "a".repeat(4096);
  const c2 = "b".repeat(4096);
  const c3 = "c".repeat(808);

  it("continues in a second preview, then maps the final chunks onto both: three messages, not five", async () => {
    h = await liveHarness({ adapter: { maxLength: 4096 } });
    const live = await h.runtime.live(h.target);
    live.update(c1.slice(0, 3000));
    await live.idle();
    await h.time.advance(INTERVAL);
    live.update(c1 + c2.slice(0, 1000)); // preview 1 fills to the limit, preview 2 starts
    await h.time.advance(INTERVAL);
    await live.idle();
    await h.time.advance(INTERVAL);
    await live.idle();
    expect(h.visible()).toEqual([c1, c2.slice(0, 1000)]);
    const [p1, p2] = h.platform.visible("dm-1").map((m) => m.id);
    await h.time.advance(INTERVAL);
    const receipt = await h.drive(live.finalize(c1 + c2 + c3));
    expect(h.visible()).toEqual([c1, c2, c3]);
    expect(receipt.platformMessageIds.slice(0, 2)).toEqual([p1, p2]);
    expect(receipt.platformMessageIds).toHaveLength(3);
  });

  it("deletes a preview the shorter final no longer needs, after the final landed", async () => {
    h = await liveHarness({ adapter: { maxLength: 4096 } });
    const live = await h.runtime.live(h.target);
    live.update(c1 + c2.slice(0, 10));
    await h.time.advance(INTERVAL);
    await live.idle();
    expect(h.visible()).toHaveLength(2);
    await h.time.advance(INTERVAL);
    await h.drive(live.finalize("short answer"));
    expect(h.visible()).toEqual(["short answer"]);
  });
});
