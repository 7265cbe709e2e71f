/**
 * Live behaviour on Discord. Previews need nothing here: herald sends a preview and edits it
 * through the send adapter, at most 5 edits per 5 s per channel (`capabilities.live.editRate`,
 * Discord's message bucket, shared with sends). This adds the typing indicator
 * (`POST /channels/{id}/typing`, shown ~10 s, repeated every `typingRefreshMs`) and the preview
 * policy: with `finalDelivery: "fresh"` every final is sent as a new message (Discord shows it
 * as unread; an edit does not notify) and the previews are deleted once it is accepted; with
 * `"edit"` the last preview becomes the final.
 *
 * Source: https://discord.com/developers/docs/resources/channel#trigger-typing-indicator
 *
 * @module
 */
import type { MessageLiveAdapter } from "@herald/plugin-sdk/channel-message";
import type { DiscordRest } from "./client.ts";
import type { DiscordConfig } from "./config.ts";
import { channelOf } from "./send.ts";

/** The live adapter. Discord cannot hide a typing indicator early: it lapses, or our message ends it. */
export function createLive(
  rest: DiscordRest,
  config: Pick<DiscordConfig, "typingRefreshMs" | "finalDelivery">,
): MessageLiveAdapter {
  return {
    typing: {
      refreshMs: config.typingRefreshMs,
      async start(ctx) {
        await rest.call({
          method: "POST",
          route: `/channels/${channelOf(ctx.message.target)}/typing`,
          signal: ctx.signal,
        });
      },
    },
    previews: {
      onCancel: "delete",
      onRecover: "delete",
      ...(config.finalDelivery === "fresh" ? { staleAfterMs: 0 } : {}),
    },
  };
}
