/**
 * File units: a file shared into a conversation. Slack's upload is three steps —
 * `files.getUploadURLExternal` (a one-time URL and file id), the bytes POSTed to that URL, and
 * `files.completeUploadExternal` with `channel_id` / `thread_ts` / `initial_comment`, which shares
 * the file as a message. Only the last step makes anything visible: a failure before it is safe
 * to retry (`not_dispatched`); the share's `ts` comes from the answer's `shares`.
 *
 * Bytes come from a local `path`, or from a remote `url` read through the SDK's guarded fetch
 * (public addresses only unless `media.allowPrivateNetworks` / `media.allowedHosts` say
 * otherwise; at most `media.maxBytes`). An image with a URL needs no upload at all: it is posted
 * as an image block, which Slack fetches itself (`render.ts`).
 *
 * A shared file carries no message metadata, so reconciliation cannot find a file unit whose
 * share is in doubt: it answers `unresolved` for it and `unknownSendPolicy` decides.
 *
 * Source: https://docs.slack.dev/messaging/working-with-files#uploading_files
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { fetchRemoteMedia, type MessageSendContext } from "@herald/plugin-sdk/channel-message";
import type { WebClient } from "@slack/web-api";
import type { SlackConfig } from "./config.ts";
import { SlackUploadError } from "./errors.ts";
import type { SlackFilePayload } from "./render.ts";
import type { SlackPlacement } from "./target.ts";

/** Uploads one file unit. @returns the `ts` of the message that shares the file. */
export type Uploader = {
  upload(ctx: MessageSendContext, place: SlackPlacement, file: SlackFilePayload): Promise<string>;
};

/** Where a file's `ts` is in a `completeUploadExternal` answer. */
type Shares = Record<string, Array<{ ts?: string }> | undefined>;
type CompletedFile = { id?: string; shares?: { public?: Shares; private?: Shares } };

/** The `ts` of the message sharing `file` in `channel`, if the answer names it. */
function shareTs(file: CompletedFile | undefined, channel: string): string | undefined {
  const list = file?.shares?.public?.[channel] ?? file?.shares?.private?.[channel];
  return list?.[0]?.ts;
}

/** What the uploader needs. */
export type UploaderDeps = {
  client: WebClient;
  config: Pick<SlackConfig, "media" | "requestTimeoutMs">;
};

/** The uploader (see the module notes). */
export function createUploader(deps: UploaderDeps): Uploader {
  const { client, config } = deps;
  return {
    async upload(ctx, place, file) {
      let bytes: Uint8Array;
      try {
        bytes =
          "url" in file.source
            ? (
                await fetchRemoteMedia(file.source.url, {
                  maxBytes: config.media.maxBytes,
                  allowPrivateNetworks: config.media.allowPrivateNetworks,
                  allowedHosts: config.media.allowedHosts,
                  signal: ctx.signal,
                })
              ).bytes
            : new Uint8Array(await readFile(file.source.path));
      } catch (error) {
        throw new SlackUploadError("read", error);
      }
      let target: { upload_url?: string; file_id?: string };
      try {
        target = await client.files.getUploadURLExternal({
          filename: file.filename,
          length: bytes.byteLength,
        });
      } catch (error) {
        throw new SlackUploadError("get_upload_url", error);
      }
      if (!target.upload_url || !target.file_id) {
        throw new SlackUploadError(
          "get_upload_url",
          new Error("no upload_url / file_id in the answer"),
        );
      }
      try {
        const response = await fetch(target.upload_url, {
          method: "POST",
          headers: { "content-type": file.mimeType ?? "application/octet-stream" },
          body: bytes,
          signal: AbortSignal.timeout(config.requestTimeoutMs),
        });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`upload answered ${response.status}`);
      } catch (error) {
        throw new SlackUploadError("upload", error);
      }
      const done = (await client.files.completeUploadExternal({
        files: [{ id: target.file_id, ...(file.title ? { title: file.title } : {}) }],
        channel_id: place.channel,
        ...(place.threadTs ? { thread_ts: place.threadTs } : {}),
        ...(file.comment ? { initial_comment: file.comment } : {}),
      } as Parameters<WebClient["files"]["completeUploadExternal"]>[0])) as {
        files?: CompletedFile[];
      };
      const ts = shareTs(done.files?.[0], place.channel);
      if (ts) return ts;
      // Slack shares asynchronously; ask once where it went.
      const info = (await client.files.info({ file: target.file_id }).catch(() => undefined)) as
        | { file?: CompletedFile }
        | undefined;
      const later = shareTs(info?.file, place.channel);
      if (later) return later;
      // After the share call: it may be visible, so this is not a safe retry.
      throw new Error(
        `files.completeUploadExternal: file ${target.file_id} shows no share in ${place.channel}`,
      );
    },
  };
}
