/**
 * File units: uploading a file into a conversation (`files.getUploadURLExternal`, the bytes to
 * the returned URL, `files.completeUploadExternal` with `channel_id` / `thread_ts`). Remote media
 * is read through the SDK's guarded fetch (no loopback or private addresses unless configured).
 *
 * Source: https://docs.slack.dev/messaging/working-with-files#uploading_files
 *
 * @module
 */
import { type MessageSendContext, NotImplementedError } from "@herald/plugin-sdk/channel-message";
import type { SlackFilePayload } from "./render.ts";
import type { SlackPlacement } from "./target.ts";

/** Uploads one file unit. @returns the `ts` of the message that shares the file. */
export type Uploader = {
  upload(ctx: MessageSendContext, place: SlackPlacement, file: SlackFilePayload): Promise<string>;
};

/** The uploader of this release: file uploads are not implemented yet. */
export const notImplementedUploader: Uploader = {
  async upload() {
    throw new NotImplementedError(
      "Slack file uploads",
      "send the file as a link in the text for now (docs/channels/slack.md)",
    );
  },
};
