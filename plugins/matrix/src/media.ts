/**
 * Files out on Matrix ([H23]): every outbound file is its own unit — its own event with its own
 * transaction id — sent as `m.image` / `m.file` / `m.audio` / `m.video` with an `mxc://` URI.
 * Files come before the text (the caption), as on every channel.
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
import {
  AttachmentTooLargeError,
  type FetchAttachment,
  limitStream,
  type MessageAttachment,
  type MessageSendContext,
} from "@herald/plugin-sdk/channel-message";
import type { MatrixHttp } from "./client.ts";
import {
  MatrixApiError,
  type MatrixErrorBody,
  MatrixNetworkError,
  MatrixRenderError,
} from "./errors.ts";
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

/** The file msgtypes herald receives as attachments ([H23] files in). */
export const FILE_MSGTYPES: ReadonlySet<string> = new Set([
  "m.image",
  "m.file",
  "m.audio",
  "m.video",
]);

const KIND_OF: Record<string, MessageAttachment["kind"]> = {
  "m.image": "image",
  "m.file": "file",
  "m.audio": "audio",
  "m.video": "video",
};

/**
 * The attachment of an inbound file event (`m.image` / `m.file` / `m.audio` / `m.video` with
 * an `mxc://` `url`): name, type, size and the `mxc://` URI as `platformFileId` (fetched with
 * {@link createFetchAttachment}). `undefined` for an event without a usable `url` (an encrypted
 * file's `file` object is not read: encrypted attachments are out of scope).
 */
export function inboundAttachmentOf(
  content: Record<string, unknown>,
): MessageAttachment | undefined {
  const msgtype = String(content.msgtype);
  const url = content.url;
  if (!FILE_MSGTYPES.has(msgtype) || typeof url !== "string" || !url.startsWith("mxc://"))
    return undefined;
  const info = (content.info ?? {}) as { mimetype?: unknown; size?: unknown };
  const name =
    typeof content.filename === "string"
      ? content.filename
      : typeof content.body === "string"
        ? content.body
        : "file";
  return {
    kind: KIND_OF[msgtype] ?? "file",
    platformFileId: url,
    name,
    ...(typeof info.mimetype === "string" ? { mimeType: info.mimetype } : {}),
    ...(typeof info.size === "number" ? { sizeBytes: info.size } : {}),
  };
}

/**
 * `receive.fetchAttachment`: streams an `mxc://` file through the authenticated media API
 * (`GET /_matrix/client/v1/media/download/{serverName}/{mediaId}`, with the bot's token),
 * capped at `maxBytes` (a declared `Content-Length` over it fails before reading; the stream
 * errors with `AttachmentTooLargeError` past it). Never buffered whole.
 *
 * @throws MatrixApiError when the homeserver refuses (404 `M_NOT_FOUND`).
 * @throws MatrixRenderError when the attachment has no `mxc://` id.
 */
export function createFetchAttachment(homeserverUrl: string, accessToken: string): FetchAttachment {
  return async (ctx, attachment, options) => {
    const uri = attachment.platformFileId ?? attachment.url;
    const match = uri ? /^mxc:\/\/([^/]+)\/([^/?#]+)$/.exec(uri) : null;
    if (!match) {
      throw new MatrixRenderError(
        `attachment.platformFileId must be an mxc:// URI, got ${JSON.stringify(uri)}`,
      );
    }
    const call = "GET /_matrix/client/v1/media/download/{serverName}/{mediaId}";
    const url = `${homeserverUrl.replace(/\/+$/, "")}/_matrix/client/v1/media/download/${encodeURIComponent(match[1] as string)}/${encodeURIComponent(match[2] as string)}`;
    const signal = options.signal ?? ctx.signal;
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { authorization: `Bearer ${accessToken}` },
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      throw new MatrixNetworkError(call, error);
    }
    const name = attachment.name ?? uri ?? "file";
    if (!response.ok || !response.body) {
      const body = (await response.json().catch(() => ({}))) as MatrixErrorBody;
      throw new MatrixApiError(call, response.status, body, undefined);
    }
    const declared = Number(response.headers.get("content-length"));
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      await response.body.cancel();
      throw new AttachmentTooLargeError({
        name,
        sizeBytes: declared,
        maxBytes: options.maxBytes,
        channel: ctx.channel,
      });
    }
    return limitStream(response.body, options.maxBytes, { name, channel: ctx.channel });
  };
}
