/**
 * Files out on Matrix ([H23]): every outbound file is its own unit — its own event with its own
 * transaction id — sent as `m.image` / `m.file` / `m.audio` / `m.video` with an `mxc://` URI.
 * A local file (`path`) is uploaded first (`POST /_matrix/media/v3/upload`, streamed from disk);
 * a `platformFileId` must already be an `mxc://` URI (sent again without uploading). A replay
 * after a crash between the upload and the event uploads again (an unreferenced upload, never
 * shown) and sends the event with the same txnId: shown once.
 *
 * Encrypted rooms: files throw `NotImplementedError` (encrypted attachments put a `file` object
 * with the key instead of `url`; not built). Files larger than `maxUploadBytes` (the homeserver's
 * `m.upload.size`, Synapse's default 50 MiB) fail with `AttachmentTooLargeError` before any upload
 * (core checks `sizeBytes` against the capability).
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#post_matrixmediav3upload,
 * https://spec.matrix.org/latest/client-server-api/#mimage, #mfile
 *
 * @module
 */
import { openAsBlob } from "node:fs";
import { basename } from "node:path";
import type { MessageAttachment, MessageSendContext } from "@herald/plugin-sdk/channel-message";
import type { MatrixHttp } from "./client.ts";
import { MatrixRenderError } from "./errors.ts";
import { assertNoFiles } from "./roomCrypto.ts";

/** Synapse's default `max_upload_size` (50 MiB), in bytes: the default `maxUploadBytes`. */
export const MATRIX_DEFAULT_MAX_UPLOAD_BYTES = 52_428_800;

/** The payload of one file unit (plain JSON, stored on the intent). */
export type MatrixMediaPayload = {
  type: "media";
  /** `m.image` for images, `m.audio` for audio and voice, `m.video`, else `m.file`. */
  msgtype: "m.image" | "m.file" | "m.audio" | "m.video";
  /** The file's name, the event's `body`. */
  name: string;
  /** Local path to upload. */
  path?: string;
  /** An `mxc://` URI already in the content repository. */
  mxc?: string;
  mimeType?: string;
  sizeBytes?: number;
  /** Always empty (a file event mentions nobody); kept so every payload has `mentions`. */
  mentions: string[];
};

/** Whether an attachment becomes a file unit (not a link line in the text). */
export function isFileAttachment(a: MessageAttachment): boolean {
  return a.kind !== "link" && (a.path !== undefined || a.platformFileId !== undefined);
}

const MSGTYPE: Record<MessageAttachment["kind"], MatrixMediaPayload["msgtype"]> = {
  image: "m.image",
  sticker: "m.image",
  audio: "m.audio",
  voice: "m.audio",
  video: "m.video",
  file: "m.file",
  link: "m.file",
};

/**
 * The file unit of an attachment.
 * @param at - the attachment's place, for errors (`attachments[1]`).
 * @throws MatrixRenderError when `platformFileId` is not an `mxc://` URI.
 */
export function mediaPayloadOf(a: MessageAttachment, at: string): MatrixMediaPayload {
  if (a.path === undefined && !a.platformFileId?.startsWith("mxc://")) {
    throw new MatrixRenderError(
      `${at}.platformFileId must be an mxc:// URI on Matrix, got ${JSON.stringify(a.platformFileId)}`,
    );
  }
  const name = a.name ?? (a.path !== undefined ? basename(a.path) : "file");
  return {
    type: "media",
    msgtype: MSGTYPE[a.kind],
    name,
    ...(a.path !== undefined ? { path: a.path } : { mxc: a.platformFileId as string }),
    ...(a.mimeType !== undefined ? { mimeType: a.mimeType } : {}),
    ...(a.sizeBytes !== undefined ? { sizeBytes: a.sizeBytes } : {}),
    mentions: [],
  };
}

/**
 * The `m.room.message` content of a file unit, uploading its local file first.
 * @throws NotImplementedError in an encrypted room (`encrypted` true).
 * @throws MatrixApiError when the upload is refused (`M_TOO_LARGE`).
 */
export async function mediaContent(
  http: MatrixHttp,
  ctx: MessageSendContext,
  room: string,
  payload: MatrixMediaPayload,
  encrypted: boolean,
): Promise<Record<string, unknown>> {
  if (encrypted) assertNoFiles(ctx, room);
  let url = payload.mxc;
  let size = payload.sizeBytes;
  if (url === undefined) {
    const blob = await openAsBlob(payload.path as string, {
      ...(payload.mimeType !== undefined ? { type: payload.mimeType } : {}),
    });
    size = blob.size;
    url = await http.upload(blob, {
      name: payload.name,
      mimeType: payload.mimeType,
      signal: ctx.signal,
    });
  }
  const info = {
    ...(payload.mimeType !== undefined ? { mimetype: payload.mimeType } : {}),
    ...(size !== undefined ? { size } : {}),
  };
  return {
    msgtype: payload.msgtype,
    body: payload.name,
    ...(payload.msgtype === "m.file" ? { filename: payload.name } : {}),
    url,
    ...(Object.keys(info).length ? { info } : {}),
  };
}
