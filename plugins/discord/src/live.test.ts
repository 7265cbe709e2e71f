/**
 * Live previews and attachments on Discord, asserted on the fake's visible state.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { eventually } from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { openBench } from "./testing/bench.ts";

describe("live previews", () => {
  it('finalDelivery "edit": the preview becomes the final, one message', async () => {
    const b = await openBench();
    const { channel, target } = b.channel();
    const live = await b.runtime.live({ channel: "discord", target }, { idempotencyKey: "live-1" });
    live.update("thinking");
    await eventually(
      () => b.fake.messages(channel.id).length,
      (n) => n === 1,
      { what: "the preview" },
    );
    // An edited preview proves herald recorded the preview's id.
    live.update("thinking more");
    await eventually(
      () => b.fake.messages(channel.id)[0]?.text,
      (t) => t === "thinking more",
      { what: "the edited preview" },
    );
    await live.finalize("the answer");
    const shown = b.fake.messages(channel.id);
    expect(shown.map((m) => m.text)).toEqual(["the answer"]);
    expect(shown[0]?.history).toEqual(["thinking", "thinking more", "the answer"]);
  });

  it('finalDelivery "fresh": the final is a new message (unread), the preview is deleted after it was accepted', async () => {
    const b = await openBench({ config: { finalDelivery: "fresh" } });
    const { channel, target } = b.channel();
    const live = await b.runtime.live({ channel: "discord", target }, { idempotencyKey: "live-1" });
    live.update("thinking");
    await eventually(
      () => b.fake.messages(channel.id).length,
      (n) => n === 1,
      { what: "the preview" },
    );
    live.update("thinking more");
    await eventually(
      () => b.fake.messages(channel.id)[0]?.text,
      (t) => t === "thinking more",
      { what: "the edited preview" },
    );
    await live.finalize("the answer");
    const all = b.fake.state.messages({ chat: channel.id, includeDeleted: true });
    expect(all.map((m) => [m.text, m.deleted])).toEqual([
      ["thinking more", true],
      ["the answer", false],
    ]);
    // Deleted only after the fresh final existed.
    expect((all[0]?.deletedAt ?? 0) >= (all[1]?.createdAt ?? Number.POSITIVE_INFINITY)).toBe(true);
  });

  it("declares Discord's 5 edits per 5 s per channel for previews", async () => {
    const b = await openBench({ config: { rateLimits: {} } });
    expect(b.adapter.capabilities.live?.editRate).toEqual({ limit: 5, intervalMs: 5_000 });
  });
});

describe("attachments", () => {
  it("an image URL is shown by Discord from the URL; a remote file is fetched (guarded) and uploaded", async () => {
    const files = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" }).end("report body");
    });
    await new Promise<void>((resolve) => files.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => files.close(() => resolve())));
    const base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    const b = await openBench();
    const { channel, target } = b.channel();
    await b.runtime.send(
      b.message(target, "see attached", {
        attachments: [
          { kind: "image", url: "https://images.invalid/cat.png" },
          { kind: "file", url: `${base}/report.txt`, name: "report.txt" },
        ],
      }),
    );
    const stored = [...b.fake.stored.values()].filter((s) => s.channelId === channel.id);
    expect(stored.map((s) => s.json.content)).toEqual(["see attached", ""]);
    expect(stored[0]?.embeds).toEqual([{ image: { url: "https://images.invalid/cat.png" } }]);
    expect(stored[1]?.files).toEqual([{ name: "report.txt", size: "report body".length }]);
  });

  it("a file on a private address is refused by the guarded fetch: invalid_payload, nothing sent", async () => {
    const b = await openBench({ config: { media: { allowPrivateNetworks: false } } });
    const { channel, target } = b.channel();
    await b.runtime.enqueue(
      b.message(target, "", { attachments: [{ kind: "file", url: "http://127.0.0.1:9/x.bin" }] }),
      { idempotencyKey: "blocked" },
    );
    const intent = await b.settled("blocked");
    expect(intent.status).toBe("failed");
    expect(intent.failure).toMatchObject({
      kind: "invalid_payload",
      evidence: "not_dispatched",
      platformCode: "media_blocked_address",
    });
    expect(b.fake.messages(channel.id)).toEqual([]);
  });
});
