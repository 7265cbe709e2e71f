/**
 * The fake's inbound files, as the Bot API describes them: files people sent are registered
 * with {@link addUserFile}; `getFile` answers `{ file_id, file_unique_id, file_size, file_path }`
 * (no `file_path` above the 20 MB download limit: `400 Bad Request: file is too big`), and
 * `GET /file/bot<token>/<file_path>` serves the bytes.
 *
 * Source: https://core.telegram.org/bots/api#getfile
 *
 * @module
 */
import type { Context, FakePlatformEnv } from "@herald/plugin-sdk/testing";
import type { FakeBotAccount, FakeTelegramCore } from "./fakeTypes.ts";
import { badRequest } from "./fakeWire.ts";

/** The Bot API's download limit, bytes. */
const DOWNLOAD_LIMIT = 20 * 1024 * 1024;

type StoredFile = { id: string; uniqueId: string; path: string; bytes: Uint8Array };

const FILES = new WeakMap<FakeTelegramCore, Map<string, StoredFile>>();

function filesOf(fake: FakeTelegramCore): Map<string, StoredFile> {
  let files = FILES.get(fake);
  if (!files) {
    files = new Map();
    FILES.set(fake, files);
  }
  return files;
}

/**
 * Registers a file a person sent; returns its Bot API `Document` fields (put them in a
 * `document` of a pushed update).
 */
export function addUserFile(
  fake: FakeTelegramCore,
  input: { name: string; bytes: Uint8Array; mimeType?: string },
): {
  file_id: string;
  file_unique_id: string;
  file_size: number;
  file_name: string;
  mime_type?: string;
} {
  const files = filesOf(fake);
  const n = files.size + 1;
  const id = `BQACAgIAAx${String(n).padStart(6, "0")}`;
  const file: StoredFile = {
    id,
    uniqueId: `AgAD${n}`,
    path: `documents/file_${n}_${input.name}`,
    bytes: input.bytes,
  };
  files.set(id, file);
  return {
    file_id: id,
    file_unique_id: file.uniqueId,
    file_size: input.bytes.byteLength,
    file_name: input.name,
    ...(input.mimeType ? { mime_type: input.mimeType } : {}),
  };
}

/** `getFile` on the fake. */
export function getFile({
  fake,
  p,
}: {
  fake: FakeTelegramCore;
  bot: FakeBotAccount;
  p: Record<string, unknown>;
}): Record<string, unknown> {
  const file = filesOf(fake).get(String(p.file_id ?? ""));
  if (!file) throw badRequest("invalid file_id");
  if (file.bytes.byteLength > DOWNLOAD_LIMIT) throw badRequest("file is too big");
  return {
    file_id: file.id,
    file_unique_id: file.uniqueId,
    file_size: file.bytes.byteLength,
    file_path: file.path,
  };
}

/** Registers the download route `GET /file/bot<token>/<file_path>` (fault op `download`). */
export function registerFileDownload(fake: FakeTelegramCore): void {
  fake.server.route("GET", "/file/:bot/*", "download", (c: Context<FakePlatformEnv>) => {
    const bot = fake.botOfToken((c.req.param("bot") ?? "").replace(/^bot/, ""));
    if (!bot) return c.json({ ok: false, error_code: 401, description: "Unauthorized" }, 401);
    const path = decodeURIComponent(c.req.path.replace(/^\/file\/[^/]+\//, ""));
    const file = [...filesOf(fake).values()].find((f) => f.path === path);
    if (!file) return c.json({ ok: false, error_code: 404, description: "Not Found" }, 404);
    return new Response(file.bytes, {
      headers: {
        "content-type": "application/octet-stream",
        "content-length": String(file.bytes.byteLength),
      },
    });
  });
}
