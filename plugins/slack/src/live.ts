/**
 * Live behaviour on Slack: native streams where Slack allows them (`stream.ts`: a DM, or a
 * channel with the message's recipient), otherwise a preview posted with `chat.postMessage` and
 * edited with `chat.update` through the send adapter, at most one update per `previewIntervalMs`
 * per channel (`capabilities.live.editRate`) and within the `chat.update` tier
 * (`capabilities.rateLimits`). A 429 on an update pauses the channel for its `Retry-After`; core
 * then sends only the latest text (C06).
 *
 * Sources: https://docs.slack.dev/reference/methods/chat.update,
 * https://docs.slack.dev/reference/methods/chat.startStream
 *
 * @module
 */
import type { MessageLiveAdapter } from "@herald/plugin-sdk/channel-message";
import type { WebClient } from "@slack/web-api";
import type { SlackConfig } from "./config.ts";
import { createStream } from "./stream.ts";

/** What the live adapter needs. */
export type LiveDeps = {
  client: WebClient;
  config: Pick<
    SlackConfig,
    "nativeStreaming" | "replyInThread" | "replyBroadcast" | "streamRotateAfterMs"
  >;
  secrets: readonly string[];
};

/** The live adapter: native streams when configured; previews deleted on cancel and after a crash. */
export function createLive(deps: LiveDeps): MessageLiveAdapter {
  return {
    ...(deps.config.nativeStreaming ? { stream: createStream(deps) } : {}),
    previews: { onCancel: "delete", onRecover: "delete" },
  };
}
