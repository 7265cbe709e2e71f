/** The receiver sink: one receiver serving several accounts names each event's account. */
import { describe, expect, it } from "vitest";
import { createReceiverSinkFor } from "./sink.ts";
import { createFakeTelegramAdapter, teleUpdate } from "./testing/fakeTelegram.ts";
import { receiveBench } from "./testing/harness.ts";
import type { ReceiveOutcome, ReceiveSource } from "./types.ts";

describe("receiver sink", () => {
  it("delivers for the account an event names (one Events URL, many workspaces), else its own", async () => {
    const b = receiveBench([createFakeTelegramAdapter()]);
    const seen: { outcome: ReceiveOutcome["status"]; source: ReceiveSource }[] = [];
    const sink = createReceiverSinkFor({
      receive: (raw, source) => b.runtime.receive(raw, source),
      store: b.store,
      channel: "telegram",
      accountId: "T-default",
      onOutcome: (o, source) => seen.push({ outcome: o.status, source }),
    });
    await sink.receive(teleUpdate(1, { chatId: 5 }), { accountId: "T1" }).done;
    await sink.receive(teleUpdate(2, { chatId: 5 })).done;
    // The same message id in another workspace is another message: not a duplicate.
    await sink.receive(teleUpdate(1, { chatId: 5 }), { accountId: "T2" }).done;
    await Promise.resolve();
    expect(seen.map((s) => [s.source.accountId, s.outcome])).toEqual([
      ["T1", "processed"],
      ["T-default", "processed"],
      ["T2", "processed"],
    ]);
    expect(b.processed.map((p) => p.id)).toEqual([
      "telegram/T1/5:1",
      "telegram/T-default/5:2",
      "telegram/T2/5:1",
    ]);
  });

  it("counts a watermark that followed a restart of the platform's id sequence", async () => {
    const b = receiveBench([createFakeTelegramAdapter()]);
    const restarts: string[] = [];
    const sink = createReceiverSinkFor({
      receive: (raw, source) => b.runtime.receive(raw, source),
      store: b.store,
      channel: "telegram",
      accountId: "main",
      onWatermarkRestart: (r) => restarts.push(`${r.key.accountId}:${r.floor}->${r.id}`),
    });
    await b.store.setWatermark({ channel: "telegram", accountId: "main", source: "u" }, "500");
    const tracker = sink.watermark("u");
    await tracker.load();
    tracker.resumeAfter();
    tracker.begin(3);
    expect(restarts).toEqual(["main:500->3"]);
  });

  it("keys watermarks and cursors by channel, account and source", async () => {
    const b = receiveBench([createFakeTelegramAdapter()]);
    const sink = createReceiverSinkFor({
      receive: (raw, source) => b.runtime.receive(raw, source),
      store: b.store,
      channel: "matrix",
      accountId: "main",
    });
    const batch = sink.cursor("sync").batch("s2");
    await batch.seal();
    expect(
      await b.store.getWatermark({ channel: "matrix", accountId: "main", source: "sync" }),
    ).toBe("s2");
    expect(sink.watermark("updates").key).toEqual({
      channel: "matrix",
      accountId: "main",
      source: "updates",
    });
  });
});
