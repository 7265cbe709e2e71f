/**
 * Live behaviour on Slack. Previews need nothing here: herald posts a preview with
 * `chat.postMessage` and edits it with `chat.update` through the send adapter, at most one update
 * per `previewIntervalMs` per channel (`capabilities.live.editRate`) and within the
 * `chat.update` tier (`capabilities.rateLimits`). This sets the preview policy.
 *
 * Source: https://docs.slack.dev/reference/methods/chat.update
 *
 * @module
 */
import type { MessageLiveAdapter } from "@herald/plugin-sdk/channel-message";
import type { SlackConfig } from "./config.ts";

/** The live adapter: previews are deleted on cancel and after a crash. */
export function createLive(_config: Pick<SlackConfig, "nativeStreaming">): MessageLiveAdapter {
  return {
    previews: { onCancel: "delete", onRecover: "delete" },
  };
}
