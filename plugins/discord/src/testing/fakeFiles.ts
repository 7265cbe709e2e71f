/**
 * The fake's attachment CDN: a file a person attached to a message is served at
 * `<fake>/attachments/<channel>/<attachment>/<name>` (Discord serves attachments from its CDN,
 * `cdn.discordapp.com/attachments/…`, with signed query parameters and no bot token), with its
 * `content-type` and `content-length`.
 *
 * Source: https://discord.com/developers/docs/resources/message#attachment-object
 *
 * @module
 */
import type { FakeDiscordCore, FakeStoredMessage, FakeUser } from "./fakeTypes.ts";

const FILES = new WeakMap<FakeDiscordCore, Map<string, { bytes: Uint8Array; type: string }>>();

/**
 * A person posts a message with one attached file: stored (and dispatched) like Discord does,
 * its attachment's `url` pointing at the fake's CDN route.
 */
export function postWithFile(
  fake: FakeDiscordCore & { serverUrl: string },
  input: {
    channelId: string;
    author: FakeUser;
    text: string;
    file: { name: string; bytes: Uint8Array; contentType: string };
  },
): FakeStoredMessage {
  let files = FILES.get(fake);
  if (!files) {
    files = new Map();
    FILES.set(fake, files);
    fake.server.app.get("/attachments/:channel/:id/:name", (c) => {
      const path = `${c.req.param("channel")}/${c.req.param("id")}/${c.req.param("name")}`;
      const file = FILES.get(fake)?.get(path);
      if (!file) return c.text("Not Found", 404);
      return new Response(file.bytes, {
        headers: {
          "content-type": file.type,
          "content-length": String(file.bytes.byteLength),
        },
      });
    });
  }
  const { message } = fake.post({
    channelId: input.channelId,
    author: input.author,
    text: input.text,
    files: [{ name: input.file.name, size: input.file.bytes.byteLength }],
  });
  const attachment = (message.json.attachments as Array<Record<string, unknown>>)[0] ?? {};
  const path = `${input.channelId}/${String(attachment.id)}/${input.file.name}`;
  files.set(path, { bytes: input.file.bytes, type: input.file.contentType });
  const url = `${fake.serverUrl}/attachments/${path}`;
  // Rewritten in place: a gateway dispatch not yet sent carries the same object.
  Object.assign(attachment, { url, proxy_url: url, content_type: input.file.contentType });
  return message;
}
