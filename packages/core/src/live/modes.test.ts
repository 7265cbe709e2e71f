import { afterEach, describe, expect, it } from "vitest";
import { DeliveryFailedError } from "../delivery/errors.ts";
import { NotImplementedError } from "../errors.ts";
import { LiveSessionBusyError, LiveSessionEndedError } from "./errors.ts";
import { splitBlocks } from "./segments.ts";
import { type LiveHarness, liveHarness } from "./testing/harness.ts";

/** One edit interval (1 s) plus the rate-limit scheduler's margin. */
const INTERVAL = 1_020;

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

describe("block mode", () => {
  it("sends each completed block once; the final only adds what is new", async () => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target, { mode: "block" });
    live.update("Para one.\n\nPara tw");
    await live.idle();
    expect(h.visible()).toEqual(["Para one."]); // the unfinished block is never shown
    await h.time.advance(INTERVAL);
    live.update("Para one.\n\nPara two.\n\nThi");
    await live.idle();
    expect(h.visible()).toEqual(["Para one.", "Para two."]);
    await h.time.advance(INTERVAL);
    await h.drive(live.finalize("Para one.\n\nPara two.\n\nThird."));
    expect(h.visible()).toEqual(["Para one.", "Para two.", "Third."]);
  });

  it("keeps a fenced code block with blank lines together", () => {
    const text = "Intro\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\nOutro";
    expect(splitBlocks(text, false)).toEqual(["Intro", "```ts\nconst a = 1;\n\nconst b = 2;\n```"]);
    expect(splitBlocks(text, true)).toHaveLength(3);
  });

  it("keeps delivered blocks on cancel by default: they are finished content", async () => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target, { mode: "block" });
    live.update("Done part.\n\nHalf");
    await live.idle();
    await live.cancel("error");
    expect(h.visible()).toEqual(["Done part."]);
  });
});

describe("progress mode", () => {
  it("edits one status line, then turns it into the final", async () => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target, { mode: "progress" });
    live.update({ progress: "Searching…" });
    await live.idle();
    await h.time.advance(INTERVAL);
    live.update({ progress: "Reading 3 pages…" });
    await live.idle();
    expect(h.visible()).toEqual(["Reading 3 pages…"]);
    await h.time.advance(INTERVAL);
    await h.drive(live.finalize("The answer is 42."));
    expect(h.visible()).toEqual(["The answer is 42."]);
  });

  it("sends the final fresh with staleAfterMs 0 and deletes the status line after it", async () => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target, { mode: "progress", staleAfterMs: 0 });
    live.update({ progress: "Working…" });
    await live.idle();
    const statusId = h.platform.visible("dm-1")[0]?.id;
    const receipt = await h.drive(live.finalize("Done."));
    expect(h.visible()).toEqual(["Done."]);
    expect(receipt.platformMessageIds).not.toContain(statusId);
  });
});

describe("native mode", () => {
  const streaming = { live: { editRate: { limit: 1, intervalMs: 1_000 }, stream: true } };

  it("begins a stream, appends what is new, and finishes it with the final text", async () => {
    h = await liveHarness({ adapter: streaming });
    const live = await h.runtime.live(h.target, { mode: "native", idempotencyKey: "reply:n" });
    expect(live.mode).toBe("native");
    live.update("Hel");
    await live.idle();
    expect(h.platform.visible("dm-1")).toMatchObject([{ text: "Hel", streaming: true }]);
    await h.time.advance(INTERVAL);
    live.update("Hello wor");
    await live.idle();
    expect(h.visible()).toEqual(["Hello wor"]);
    await h.time.advance(INTERVAL);
    await h.drive(live.finalize("Hello world!"));
    expect(h.platform.visible("dm-1")).toMatchObject([{ text: "Hello world!", streaming: false }]);
    expect(await h.store.getIntentByIdempotencyKey("reply:n")).toMatchObject({ status: "sent" });
  });

  it("does not append over rewritten text; finish sets the final text", async () => {
    h = await liveHarness({ adapter: streaming });
    const live = await h.runtime.live(h.target, { mode: "native" });
    live.update("Maybe yes");
    await live.idle();
    await h.time.advance(INTERVAL);
    live.update("No.");
    await live.idle();
    expect(h.visible()).toEqual(["Maybe yes"]);
    await h.drive(live.finalize());
    expect(h.visible()).toEqual(["No."]);
  });

  it("sends a final with media fresh and deletes the stream only after it", async () => {
    h = await liveHarness({ adapter: streaming });
    const live = await h.runtime.live(h.target, { mode: "native" });
    live.update("Here is the chart");
    await live.idle();
    await h.drive(
      live.finalize({
        text: "Here is the chart.",
        attachments: [{ kind: "image", url: "https://x/c.png" }],
      }),
    );
    expect(h.visible()).toEqual(["[image https://x/c.png]", "Here is the chart."]);
  });

  it("falls back to partial previews when the channel has no native stream", async () => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target, { mode: "native" });
    expect(live.mode).toBe("partial");
  });
});

describe("finalize and cancel", () => {
  it("sends a final with media fresh and deletes the text preview after it (no duplicate text)", async () => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target);
    live.update("Caption");
    await live.idle();
    await h.drive(
      live.finalize({ text: "Caption", attachments: [{ kind: "image", url: "https://x/p.png" }] }),
    );
    expect(h.visible()).toEqual(["[image https://x/p.png]", "Caption"]);
  });

  it("deletes previews on cancel by default and ends the session", async () => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target, { idempotencyKey: "reply:c" });
    live.update("partial answ");
    await live.idle();
    await live.cancel("error");
    expect(h.visible()).toEqual([]);
    expect(() => live.update("more")).toThrow(LiveSessionEndedError);
    await expect(live.finalize("late")).rejects.toBeInstanceOf(LiveSessionEndedError);
    expect(await h.store.getIntentByIdempotencyKey("reply:c:live")).toMatchObject({
      status: "cancelled",
      liveState: { outcome: "deleted" },
    });
  });

  it("keeps previews with onCancel keep and records them under the key: a re-run answers nothing new", async () => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target, { idempotencyKey: "reply:k", onCancel: "keep" });
    live.update("kept text");
    await live.idle();
    await live.cancel("aborted");
    expect(h.visible()).toEqual(["kept text"]);
    const again = await h.runtime.live(h.target, { idempotencyKey: "reply:k" });
    expect(again.replayed).toBe(true);
    again.update("a different answer");
    const receipt = await again.finalize("a different answer");
    expect(receipt.platformMessageIds).toEqual(h.platform.visible("dm-1").map((m) => m.id));
    expect(h.visible()).toEqual(["kept text"]);
  });

  it("treats an empty final as a silent end: previews deleted, nothing sent", async () => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target, { onCancel: "keep" });
    live.update("thinking out loud");
    await live.idle();
    const receipt = await h.drive(live.finalize(""));
    expect(receipt.platformMessageIds).toEqual([]);
    expect(h.visible()).toEqual([]);
  });

  it("returns the first receipt when a finalized key is opened again", async () => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target, { idempotencyKey: "reply:r" });
    live.update("answer");
    await live.idle();
    const first = await h.drive(live.finalize("answer"));
    const again = await h.runtime.live(h.target, { idempotencyKey: "reply:r" });
    expect(await again.finalize("answer, again")).toEqual(first);
    expect(h.visible()).toEqual(["answer"]);
  });

  it("refuses a second session on a key that is streaming", async () => {
    h = await liveHarness();
    await h.runtime.live(h.target, { idempotencyKey: "reply:busy" });
    await expect(h.runtime.live(h.target, { idempotencyKey: "reply:busy" })).rejects.toBeInstanceOf(
      LiveSessionBusyError,
    );
  });

  it("deletes the previews per onCancel when the final fails terminally, and throws", async () => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target, { staleAfterMs: 0 });
    live.update("draft");
    await live.idle();
    h.platform.failNext({ type: "status", status: 403, code: "forbidden" }, 1, "send");
    const error = await h.drive(live.finalize("final")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryFailedError);
    expect(h.visible()).toEqual([]);
  });

  it("says plainly when a mode needs edits the channel cannot make", async () => {
    h = await liveHarness({ adapter: { live: { edit: false } } });
    await expect(h.runtime.live(h.target, { mode: "partial" })).rejects.toBeInstanceOf(
      NotImplementedError,
    );
    const blocks = await h.runtime.live(h.target, { mode: "block" });
    expect(blocks.mode).toBe("block");
  });
});
