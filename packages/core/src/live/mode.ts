/**
 * Which live mode a session runs in (DESIGN §6): the mode asked for, made to fit the channel
 * and the target. `auto` prefers the platform's own stream, then previews.
 *
 * @module
 */
import { liveLifecycleOf } from "../adapter/liveLifecycle.ts";
import type { ChannelMessageAdapter } from "../adapter/types.ts";
import { NotImplementedError } from "../errors.ts";
import type { HeraldLogger } from "../logger.ts";
import type { ChannelMessage } from "../message/message.ts";
import { canEdit } from "./env.ts";
import type { LiveMode, LiveModeOption } from "./types.ts";

/** True when the adapter streams `message` natively (its live lifecycle and `supports`). */
function streamsNatively(adapter: ChannelMessageAdapter, message: ChannelMessage): boolean {
  const live = liveLifecycleOf(adapter);
  return live?.supports(message) === true;
}

/**
 * The mode a session for `message` runs in:
 * - `auto`: `native` when the channel streams this message natively, else `partial` when it
 *   can edit, else `block`;
 * - `native` without a native stream for the target: `partial` (logged);
 * - `partial` / `progress` on a channel that cannot edit: a typed error.
 *
 * @throws NotImplementedError when `partial` or `progress` is asked of a channel without
 *   `send.edit` and `capabilities.live.edit`.
 */
export function resolveLiveMode(
  adapter: ChannelMessageAdapter,
  message: ChannelMessage,
  wanted: LiveModeOption,
  log: HeraldLogger,
): LiveMode {
  let mode: LiveMode;
  if (wanted === "auto") {
    mode = streamsNatively(adapter, message) ? "native" : canEdit(adapter) ? "partial" : "block";
    log.debug({ channel: adapter.id, mode }, "live mode auto");
    return mode;
  }
  mode = wanted;
  if (mode === "native" && !streamsNatively(adapter, message)) {
    log.info({ channel: adapter.id }, "no native stream for this target; using partial previews");
    mode = "partial";
  }
  if ((mode === "partial" || mode === "progress") && !canEdit(adapter)) {
    throw new NotImplementedError(
      `live mode "${mode}" on channel ${adapter.id}`,
      'the channel cannot edit messages (send.edit and capabilities.live.edit); use mode "block"',
    );
  }
  return mode;
}
