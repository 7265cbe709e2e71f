/**
 * [H23] files out on Matrix: a local file is uploaded (`POST /_matrix/media/v3/upload`) and sent
 * as its own `m.file` / `m.image` event (its own unit, txnId and receipt part) after the text;
 * a replay after a lost answer shows the file once; a file over `maxUploadBytes` fails with
 * `AttachmentTooLargeError` before any upload. Real matrix-js-sdk against the fake homeserver.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AttachmentTooLargeError } from "@herald/plugin-sdk/channel-message";
import { eventually } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { openBench } from "./testing/bench.ts";
import { ALICE, FAKE_BOT } from "./testing/FakeHomeserver.ts";

function fileOf(name: string, bytes: Uint8Array | string): string {
  const dir = mkdtempSync(join(tmpdir(), "herald-matrix-media-"));
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

const botEvents = (b: Awaited<ReturnType<typeof openBench>>, roomId: string) =>
  b.fake.rooms.events.filter(
    (e) => e.room_id === roomId && e.sender === FAKE_BOT.userId && e.type === "m.room.message",
  );

describe("H23 · Matrix files out", () => {
  it("H23 files: an uploaded m.image then the text, each its own event and receipt part; the upload holds the file's bytes", async () => {
    const b = await openBench();
    const { roomId, target } = b.room();
    const path = fileOf("chart.png", new Uint8Array([137, 80, 78, 71, 1, 2, 3]));
    const receipt = await b.runtime.send(
      b.say(target, "the chart", {
        attachments: [{ kind: "image", path, mimeType: "image/png", sizeBytes: 7 }],
      }),
    );
    expect(receipt.parts.map((p) => p.kind)).toEqual(["media", "text"]);
    const [image, text] = botEvents(b, roomId);
    expect(text?.content.body).toBe("the chart");
    expect(image?.content).toMatchObject({
      msgtype: "m.image",
      body: "chart.png",
      info: { mimetype: "image/png", size: 7 },
    });
    const upload = b.fake.media.uploads.get(String(image?.content.url));
    expect(upload?.contentType).toBe("image/png");
    expect([...(upload?.bytes ?? [])]).toEqual([137, 80, 78, 71, 1, 2, 3]);
    expect(receipt.parts[0]?.platformMessageId).toContain(String(image?.event_id));
  });

  it("H23 files: a file alone is one m.file event; an mxc:// platformFileId is sent again without uploading", async () => {
    const b = await openBench();
    const { roomId, target } = b.room();
    const path = fileOf("notes.txt", "hello");
    await b.runtime.send(b.say(target, "", { attachments: [{ kind: "file", path }] }));
    const [file] = botEvents(b, roomId);
    expect(file?.content).toMatchObject({
      msgtype: "m.file",
      body: "notes.txt",
      filename: "notes.txt",
    });
    expect(b.fake.media.uploads.size).toBe(1);
    await b.runtime.send(
      b.say(target, "again", {
        attachments: [
          { kind: "file", platformFileId: String(file?.content.url), name: "notes.txt" },
        ],
      }),
    );
    expect(b.fake.media.uploads.size).toBe(1);
    expect(botEvents(b, roomId).at(-2)?.content.url).toBe(file?.content.url);
  });

  it("H23 files replay: the file event's answer is lost (reset after accept); the retry with the same txnId shows it once", async () => {
    const b = await openBench();
    const { roomId, target } = b.room();
    const path = fileOf("a.bin", "abc");
    b.fake.server.faults.failNext({ kind: "reset_after_accept" }, { op: "send" });
    const receipt = await b.runtime.send(
      b.say(target, "", { attachments: [{ kind: "file", path, name: "a.bin" }] }),
    );
    const files = botEvents(b, roomId).filter((e) => e.content.msgtype === "m.file");
    expect(files).toHaveLength(1);
    expect(receipt.parts).toHaveLength(1);
    expect(receipt.parts[0]?.platformMessageId).toContain(String(files[0]?.event_id));
  });

  it("H23 files: a file over attachments.maxUploadBytes fails with AttachmentTooLargeError before any upload", async () => {
    const b = await openBench({ config: { maxUploadBytes: 4 } });
    const { roomId, target } = b.room();
    const path = fileOf("big.bin", "0123456789");
    const sent = b.runtime.send(
      b.say(target, "big", {
        attachments: [{ kind: "file", path, name: "big.bin", sizeBytes: 10 }],
      }),
    );
    await expect(sent).rejects.toBeInstanceOf(AttachmentTooLargeError);
    await expect(sent).rejects.toMatchObject({ fileName: "big.bin", sizeBytes: 10, maxBytes: 4 });
    expect(b.fake.media.uploads.size).toBe(0);
    expect(botEvents(b, roomId)).toHaveLength(0);
  });

  it("H23 files: a platformFileId that is not mxc:// is refused naming the field", async () => {
    const b = await openBench();
    const { target } = b.room();
    await expect(
      b.runtime.send(
        b.say(target, "x", { attachments: [{ kind: "file", platformFileId: "F123" }] }),
      ),
    ).rejects.toThrow(/attachments\[0\]\.platformFileId must be an mxc:\/\/ URI/);
  });

  it("H23 files in: Alice's m.file arrives with its attachment (name, type, size, mxc://); fetchAttachment streams it through authenticated media; past maxBytes → AttachmentTooLargeError", async () => {
    const b = await openBench();
    const { roomId } = b.room();
    const uri = b.fake.media.store({
      bytes: new TextEncoder().encode("quarterly numbers"),
      contentType: "text/csv",
      filename: "q3.csv",
    });
    b.fake.rooms.append({
      room_id: roomId,
      type: "m.room.message",
      sender: ALICE.userId,
      content: {
        msgtype: "m.file",
        body: "q3.csv",
        url: uri,
        info: { mimetype: "text/csv", size: 17 },
      },
    });
    await b.startReceiver();
    await eventually(
      () => b.handled,
      (h) => h.length === 1,
      { what: "the file message handled" },
    );
    const attachment = b.handled[0]?.input.attachments?.[0];
    expect(attachment).toEqual({
      kind: "file",
      platformFileId: uri,
      name: "q3.csv",
      mimeType: "text/csv",
      sizeBytes: 17,
    });
    const stream = await b.runtime.fetchAttachment({
      channel: "matrix",
      accountId: "main",
      attachment: attachment as NonNullable<typeof attachment>,
      maxBytes: 1_000,
    });
    expect(await new Response(stream).text()).toBe("quarterly numbers");
    await expect(
      b.runtime.fetchAttachment({
        channel: "matrix",
        accountId: "main",
        attachment: attachment as NonNullable<typeof attachment>,
        maxBytes: 5,
      }),
    ).rejects.toBeInstanceOf(AttachmentTooLargeError);
  });
});
