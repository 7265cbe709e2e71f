/**
 * Normalization of Chat app events (DESIGN §5; seed "Channel mapping": Google Chat):
 *
 * - `MESSAGE` → an inbound message: `platformMessageId` is the message name (the dedupe key, the
 *   same on every redelivery), `threadAnchor` is the message's `thread.name` — where a thread
 *   under it lives (Chat starts one for every top-level message) or the thread the person wrote
 *   in — never a message name. A reply in a thread targets that thread. DMs are detected from
 *   the space type (`DIRECT_MESSAGE`, or the older `type: "DM"` / `singleUserBotDm`) and get no
 *   anchor (no threads in DMs, seed "DM behavior").
 * - `ADDED_TO_SPACE` / `REMOVED_FROM_SPACE` → the typed events `member_joined` / `member_left`
 *   (the app is the member; the user who added or removed it is the actor). An `ADDED_TO_SPACE`
 *   carrying the @mention that added the app is also handed over as that `MESSAGE` by the
 *   webhook (`splitAddedWithMessage`).
 * - `CARD_CLICKED` → an `InboundAction` (a button click, `actions.ts`).
 * - Anything else (widget updates) → `ignore("event_type")`.
 *
 * Over HTTP, Chat sends an app only what mentions it in a space (or anything in a DM), so every
 * message counts as mentioning the app. The app's own messages never arrive as events; if one
 * did, `selfIds` (`users/app` and the configured app user) drops it.
 *
 * @module
 */
import {
  type ChannelMessage,
  type InboundEvent,
  ignore,
  type MessageAttachment,
  type MessageReceiveAdapter,
  type MessageTarget,
  parseInbound,
} from "@herald/plugin-sdk/channel-message";
import { actionOf } from "./actions.ts";
import {
  eventSchema,
  type GoogleChatEvent,
  type GoogleChatMessageEvent,
  messageEventSchema,
} from "./events.ts";

/** The ids the app's own messages carry. */
export const APP_USER_ALIAS = "users/app";

/** Whether a space is a DM, from its type. */
export function isDirectSpace(space: GoogleChatEvent["space"]): boolean {
  return (
    space.spaceType === "DIRECT_MESSAGE" || space.type === "DM" || space.singleUserBotDm === true
  );
}

function messageOf(
  event: GoogleChatMessageEvent,
  channel: string,
  accountId?: string,
): ChannelMessage {
  const m = event.message;
  const space = m.space?.name ?? event.space.name;
  const dm = isDirectSpace({ ...event.space, ...(m.space ?? {}) });
  const thread = m.thread?.name;
  const target: MessageTarget = dm
    ? { kind: "direct", id: space }
    : m.threadReply && thread
      ? { kind: "thread", id: space, parentId: space, threadId: thread }
      : { kind: "group", id: space };
  const text = m.argumentText?.trim() ? m.argumentText.trim() : (m.text ?? "");
  // [H23] uploaded files: fetchable through media.download (features.ts); Drive files are not.
  const attachments: MessageAttachment[] = (m.attachment ?? []).flatMap((a) =>
    a.attachmentDataRef
      ? [
          {
            kind: a.contentType?.startsWith("image/") ? ("image" as const) : ("file" as const),
            platformFileId: a.attachmentDataRef.resourceName,
            ...(a.contentName ? { name: a.contentName } : {}),
            ...(a.contentType ? { mimeType: a.contentType } : {}),
          },
        ]
      : [],
  );
  const at = m.createTime ? Date.parse(m.createTime) : Number.NaN;
  return {
    id: `${channel}:${m.name}`,
    channel,
    ...(accountId !== undefined ? { accountId } : {}),
    direction: "inbound",
    target,
    sender: {
      id: m.sender.name,
      ...(m.sender.displayName ? { displayName: m.sender.displayName } : {}),
      isBot: m.sender.type === "BOT",
    },
    body: { markdown: text },
    ...(attachments.length ? { attachments } : {}),
    platformMessageId: m.name,
    ...(Number.isFinite(at) ? { timestamp: at } : {}),
    ...(!dm && thread ? { threadAnchor: { threadId: thread } } : {}),
    mentions: { self: true },
    raw: event,
  };
}

function membershipOf(
  event: GoogleChatEvent,
  type: "member_joined" | "member_left",
  channel: string,
  accountId?: string,
): InboundEvent {
  const space = event.space.name;
  const user = event.user;
  return {
    kind: "event",
    type,
    id: `${type}:${space}:${event.eventTime ?? ""}`,
    channel,
    ...(accountId !== undefined ? { accountId } : {}),
    target: isDirectSpace(event.space)
      ? { kind: "direct", id: space }
      : { kind: "group", id: space },
    ...(user
      ? {
          actor: {
            id: user.name,
            ...(user.displayName ? { displayName: user.displayName } : {}),
            isBot: user.type === "BOT",
          },
        }
      : {}),
    members: [{ id: APP_USER_ALIAS, isBot: true, isSelf: true }],
    ...(event.eventTime && Number.isFinite(Date.parse(event.eventTime))
      ? { timestamp: Date.parse(event.eventTime) }
      : {}),
    raw: event,
  };
}

/**
 * The receive adapter.
 *
 * @param selfIds - the app's own user names (`users/app` is always included).
 */
export function createReceive(selfIds: readonly string[] = []): MessageReceiveAdapter {
  const own = [...new Set([APP_USER_ALIAS, ...selfIds])];
  return {
    normalize(raw, ctx) {
      const event = parseInbound(eventSchema, raw, ctx.channel);
      switch (event.type) {
        case "MESSAGE":
          // Throws naming `message` when a MESSAGE event has none (dead-lettered).
          return messageOf(
            parseInbound(messageEventSchema, raw, ctx.channel),
            ctx.channel,
            ctx.accountId,
          );
        case "ADDED_TO_SPACE":
          return membershipOf(event, "member_joined", ctx.channel, ctx.accountId);
        case "REMOVED_FROM_SPACE":
          return membershipOf(event, "member_left", ctx.channel, ctx.accountId);
        case "CARD_CLICKED":
          return actionOf(raw, ctx.channel, ctx.accountId, isDirectSpace(event.space));
        default:
          return ignore("event_type", event.type);
      }
    },
    selfIds: () => own,
  };
}
