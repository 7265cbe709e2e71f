/**
 * Where a Slack message goes: the conversation id and the thread. herald names a Slack message
 * `<channel>:<ts>` (the SDK's `composeRef`), because a `ts` is unique only inside its channel.
 *
 * Threads (C25): `thread_ts` is always the thread **root's** `ts`, never a reply's — the
 * target's `threadId` (set from an inbound's `thread_ts` by normalize, or by the thread model's
 * `placeReply`), else the reply relation's thread, else, for a reply to a top-level message with
 * `replyInThread`, that message's own `ts`.
 *
 * @module
 */
import {
  type ChannelMessage,
  composeRef,
  type MessageTarget,
  parseRef,
} from "@herald/plugin-sdk/channel-message";
import type { SlackConfig } from "./config.ts";

/** The Slack conversation id of a target (`nativeChannelId` when set). */
export function channelOf(target: MessageTarget): string {
  return target.nativeChannelId ?? target.id;
}

/** herald's id of a Slack message: `<channel>:<ts>`. */
export function messageRef(channel: string, ts: string): string {
  return composeRef(channel, ts);
}

/**
 * Splits `<channel>:<ts>`; a bare `ts` belongs to `fallbackChannel`.
 * @throws MalformedRefError when the ref is malformed.
 */
export function parseMessageRef(
  ref: string,
  fallbackChannel: string,
): { channel: string; ts: string } {
  const parsed = parseRef(ref, { fallbackContainer: fallbackChannel, label: "Slack message ref" });
  return { channel: parsed.container, ts: parsed.id };
}

/** Where one outbound message is posted. */
export type SlackPlacement = {
  channel: string;
  /** The thread root's `ts`, when the message goes into a thread. */
  threadTs?: string;
  /** Also shown in the channel (`reply_broadcast`). */
  broadcast: boolean;
};

/** The placement of `message` under `config` (see the module notes). */
export function placementOf(
  message: Pick<ChannelMessage, "target" | "relation">,
  config: Pick<SlackConfig, "replyInThread" | "replyBroadcast">,
): SlackPlacement {
  const { target, relation } = message;
  const channel = channelOf(target);
  let threadTs = target.threadId || undefined;
  let broadcast = false;
  if (relation?.kind === "reply") {
    const placement = relation.placement;
    threadTs ??= relation.threadId || undefined;
    const wantsThread =
      placement === "thread" ||
      placement === "broadcast" ||
      (placement === undefined && config.replyInThread);
    if (!threadTs && wantsThread && relation.replyToId) {
      threadTs = parseMessageRef(relation.replyToId, channel).ts;
    }
    broadcast =
      threadTs !== undefined &&
      (placement === "broadcast" || (placement === undefined && config.replyBroadcast));
  }
  return { channel, ...(threadTs ? { threadTs } : {}), broadcast };
}

/**
 * The permalink of a message (`<workspace>/archives/<channel>/p<ts without the dot>`), with the
 * thread of a reply, as Slack's "Copy link" makes it.
 */
export function permalinkOf(
  workspaceUrl: string,
  channel: string,
  ts: string,
  threadTs?: string,
): string {
  const base = workspaceUrl.endsWith("/") ? workspaceUrl : `${workspaceUrl}/`;
  const thread = threadTs && threadTs !== ts ? `?thread_ts=${threadTs}&cid=${channel}` : "";
  return `${base}archives/${channel}/p${ts.replace(".", "")}${thread}`;
}
