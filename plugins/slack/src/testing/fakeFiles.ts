/**
 * The fake's file uploads (Slack's external upload flow): `files.getUploadURLExternal` hands out
 * a one-time URL on the fake (op `upload_url`), the bytes are POSTed there (op `upload`), and
 * `files.completeUploadExternal` (op `send`: this is what becomes visible) shares the file into
 * `channel_id` / `thread_ts` as a message with `initial_comment`, answering the share's `ts` in
 * `shares`. `files.info` answers the same.
 *
 * @module
 */
import { method, postAsBot } from "./fakeMethods.ts";
import type { FakeFile, FakeSlackCore } from "./fakeTypes.ts";
import { fail, jsonField, ok } from "./fakeWire.ts";

/** Registers the upload flow. */
export function registerFileMethods(fake: FakeSlackCore): void {
  let next = 1;
  const json = (f: FakeFile) => ({
    id: f.id,
    name: f.name,
    ...(f.title ? { title: f.title } : {}),
    size: f.bytes?.byteLength ?? 0,
    shares: {
      public: Object.fromEntries(Object.entries(f.shares).map(([c, ts]) => [c, [{ ts }]])),
    },
  });

  method(fake, "files.getUploadURLExternal", "upload_url", (f, args) => {
    const length = Number(args.length);
    if (!args.filename || !Number.isInteger(length) || length < 0) return fail("invalid_arguments");
    const id = `F${String(next++).padStart(8, "0")}`;
    f.files.set(id, { id, name: String(args.filename), shares: {} });
    return ok({ upload_url: `${f.server.url}/upload/${id}`, file_id: id });
  });

  fake.server.route("POST", "/upload/:id", "upload", async (c) => {
    const file = fake.files.get(c.req.param("id") ?? "");
    if (!file) return new Response("no such upload", { status: 404 });
    file.bytes = new Uint8Array(await c.req.arrayBuffer());
    return new Response(`OK - ${file.bytes.byteLength}`, { status: 200 });
  });

  method(fake, "files.completeUploadExternal", "send", (f, args, bot) => {
    const list = jsonField(args.files) as Array<{ id?: string; title?: string }> | undefined;
    if (!Array.isArray(list) || list.length === 0) return fail("invalid_arguments");
    const files = list.map((x) => f.files.get(String(x.id)));
    if (files.some((x) => !x?.bytes)) return fail("file_not_found");
    const channel = typeof args.channel_id === "string" ? args.channel_id : undefined;
    if (channel) {
      const comment = typeof args.initial_comment === "string" ? args.initial_comment : "";
      const posted = postAsBot(
        f,
        "files.completeUploadExternal",
        { ...args, channel },
        bot,
        comment,
      );
      if (posted instanceof Response) return posted;
      const stored = f.message(posted.channel, posted.ts);
      files.forEach((file, i) => {
        if (!file) return;
        if (list[i]?.title) file.title = list[i]?.title as string;
        file.shares[posted.channel] = posted.ts;
        stored?.files.push(file.id);
      });
    }
    return ok({ files: files.map((x) => json(x as FakeFile)) });
  });

  method(fake, "files.info", "read", (f, args) => {
    const file = f.files.get(String(args.file ?? ""));
    return file ? ok({ file: json(file) }) : fail("file_not_found");
  });
}
