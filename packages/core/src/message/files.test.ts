/**
 * [H23] Files and buttons helpers: the size check before any upload, the byte cap on inbound
 * streams, and the text fallback of buttons.
 */
import { describe, expect, it } from "vitest";
import { AttachmentTooLargeError, NotSupportedError } from "./featureErrors.ts";
import {
  actionsFallbackMarkdown,
  assertAttachmentSizes,
  limitStream,
  withActionsFallback,
} from "./files.ts";

const streamOf = (...chunks: number[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const n of chunks) c.enqueue(new Uint8Array(n));
      c.close();
    },
  });

describe("[H23] files and buttons helpers", () => {
  it("refuses an attachment over maxUploadBytes, naming file, size, limit and channel", () => {
    const caps = { text: {}, attachments: { upload: true, remoteUrl: false, maxUploadBytes: 10 } };
    const message = {
      channel: "qa",
      attachments: [
        { kind: "file" as const, path: "/tmp/a", sizeBytes: 10 },
        { kind: "file" as const, name: "big.bin", sizeBytes: 11 },
      ],
    };
    expect(() => assertAttachmentSizes(message, caps)).toThrow(AttachmentTooLargeError);
    expect(() => assertAttachmentSizes(message, caps)).toThrow(
      'attachment "big.bin" is 11 bytes, over the 10-byte limit of qa',
    );
    // No declared limit, or no known size: left to the platform.
    expect(() => assertAttachmentSizes(message, { text: {} })).not.toThrow();
    expect(() =>
      assertAttachmentSizes(
        { channel: "qa", attachments: [{ kind: "file", url: "https://x" }] },
        caps,
      ),
    ).not.toThrow();
  });

  it("caps a stream chunk by chunk: passes up to maxBytes, errors past it", async () => {
    const read = async (s: ReadableStream<Uint8Array>) => {
      let n = 0;
      for await (const c of s as unknown as AsyncIterable<Uint8Array>) n += c.byteLength;
      return n;
    };
    expect(await read(limitStream(streamOf(4, 4, 2), 10, { name: "f", channel: "qa" }))).toBe(10);
    const error = await read(
      limitStream(streamOf(4, 4, 3), 10, { name: "f", channel: "qa" }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AttachmentTooLargeError);
    expect(error).toMatchObject({
      code: "HERALD_ATTACHMENT_TOO_LARGE",
      sizeBytes: 11,
      maxBytes: 10,
    });
  });

  it("renders buttons as 'Reply with: …' and links as markdown links after the body", () => {
    const actions = [
      { kind: "button" as const, id: "a", label: "Approve" },
      { kind: "button" as const, id: "r", label: "Reject" },
      { kind: "link" as const, label: "docs", url: "https://example.com" },
    ];
    expect(actionsFallbackMarkdown(actions)).toBe(
      "Reply with: Approve / Reject\n[docs](https://example.com)",
    );
    expect(withActionsFallback({ body: { markdown: "Deploy?" }, actions })).toEqual({
      body: { markdown: "Deploy?\n\nReply with: Approve / Reject\n[docs](https://example.com)" },
    });
    const plain = { body: { markdown: "hi" } };
    expect(withActionsFallback(plain)).toBe(plain);
    expect(new NotSupportedError("ephemeral", "telegram").message).toBe(
      "channel telegram does not support ephemeral",
    );
  });
});
