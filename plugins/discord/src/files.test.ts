/**
 * Inbound files on Discord ([H23]): an attachment of a MESSAGE_CREATE (through discord.js's
 * gateway client) streamed from its CDN url under a cap.
 */
import { AttachmentTooLargeError, type ChannelMessage } from "@herald/plugin-sdk/channel-message";
import { eventually } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { openBench } from "./testing/bench.ts";
import { ALICE } from "./testing/FakeDiscord.ts";
import { postWithFile } from "./testing/fakeFiles.ts";

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe("inbound files (H23)", () => {
  it("H23 files in: an attachment is streamed from its CDN url; over the cap → AttachmentTooLargeError before the download", async () => {
    const b = await openBench();
    const { channel } = b.channel();
    const bytes = Buffer.from("a screenshot's bytes ".repeat(300));
    postWithFile(b.fake, {
      channelId: channel.id,
      author: ALICE,
      text: "see this",
      file: { name: "shot.png", bytes, contentType: "image/png" },
    });
    await b.startReceiver();
    await eventually(
      () => b.run.handled.length,
      (n) => n === 1,
      { what: "the message handled" },
    );
    const input = b.run.handled[0]?.input as ChannelMessage;
    const attachment = input.attachments?.[0];
    expect(attachment).toMatchObject({
      kind: "image",
      name: "shot.png",
      mimeType: "image/png",
      sizeBytes: bytes.byteLength,
    });
    const file = attachment as NonNullable<typeof attachment>;
    const stream = await b.runtime.fetchAttachment({
      channel: "discord",
      accountId: "main",
      attachment: file,
      maxBytes: 1_000_000,
    });
    expect((await readAll(stream)).equals(bytes)).toBe(true);
    await expect(
      b.runtime.fetchAttachment({
        channel: "discord",
        accountId: "main",
        attachment: file,
        maxBytes: 10,
      }),
    ).rejects.toBeInstanceOf(AttachmentTooLargeError);
    const { sizeBytes: _unknown, ...unsized } = file;
    const capped = await b.runtime.fetchAttachment({
      channel: "discord",
      accountId: "main",
      attachment: unsized,
      maxBytes: 10,
    });
    await expect(readAll(capped)).rejects.toBeInstanceOf(AttachmentTooLargeError);
  });
});
