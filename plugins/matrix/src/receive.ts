/**
 * Inbound Matrix events → herald messages and events (DESIGN §5). The `/sync` receiver hands
 * over each timeline event as a {@link MatrixInbound}: the client-format event plus its room id
 * (sync leaves it out) and the room's joined-member count.
 *
 * - `m.room.message` (`m.text`, `m.notice`, `m.emote`; `m.image` / `m.file` / `m.audio` /
 *   `m.video` with the file as an attachment, [H23]) → an inbound message: the plain `body`
 *   (a legacy reply fallback `> <@user> …` stripped), the sender, the room (a thread when the
 *   event is in an `m.thread`), `threadAnchor` (the thread root, else the event itself),
 *   `mentions.self` from `m.mentions.user_ids` (or, without `m.mentions`, the user id in the
 *   body); `m.notice` marks a bot author (the spec's convention for bots).
 * - `m.reaction` (`m.annotation` with a `key`) of someone else → an `InboundReaction` on the
 *   annotated event ([H23]; a removal is the redaction of the reaction: `message_deleted`).
 * - an `m.replace` edit → `message_edited`; `m.room.redaction` → `message_deleted`;
 *   `m.room.member` joins and leaves → `member_joined` / `member_left`.
 * - encrypted events arrive decrypted (the receiver's hydration, `hydrate.ts`): the clear type and
 *   content under the same event id, with `encrypted` set; one that could not be decrypted
 *   (`undecryptable`) → {@link MatrixDecryptionError}, and an `m.room.encrypted` event of an
 *   account without encryption → {@link MatrixEncryptedRoomError} — both dead-lettered with the
 *   raw event (docs/channels/matrix.md, "Encryption").
 * - anything else → `ignore(reason)` (logged and counted).
 *
 * Own events are recognised by the sender — the canonical user id from `/whoami`, compared
 * case-exactly — and tagged herald gateway-failure echoes of other bots by `dev.herald.origin`
 * (core's `shouldDropHeraldEcho`). The dedupe identity is the event's ref `<roomId>:<eventId>`.
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#mroommessage,
 * https://spec.matrix.org/latest/client-server-api/#user-and-room-mentions
 *
 * @module
 */

import {
  type ChannelMessage,
  type InboundEvent,
  type InboundReaction,
  ignore,
  type MessageEventClass,
  type MessageReceiveAdapter,
  type MessageTarget,
  parseInbound,
  ReceiveValidationError,
  z,
} from "@herald/plugin-sdk/channel-message";
import { MATRIX_CHANNEL_ID } from "./account.ts";
import { MatrixDecryptionError, MatrixEncryptedRoomError } from "./errors.ts";
import { FILE_MSGTYPES, inboundAttachmentOf } from "./media.ts";
import { eventRef } from "./send.ts";
import { syncFragmentSchema } from "./syncShape.ts";

const eventSchema = z.object({
  event_id: z.string().startsWith("$"),
  type: z.string().min(1),
  sender: z.string().startsWith("@"),
  origin_server_ts: z.number(),
  content: z.record(z.string(), z.unknown()),
  state_key: z.string().optional(),
  redacts: z.string().optional(),
  unsigned: z.record(z.string(), z.unknown()).optional(),
});

/** What the receiver hands `sink.receive` for one timeline event. */
export const matrixInboundSchema = z.object({
  room_id: z.string().startsWith("!"),
  event: eventSchema,
  /** `m.joined_member_count` of the room summary, when the receiver knows it. */
  joined_member_count: z.number().int().nonnegative().optional(),
  /** Set when `event` was decrypted (its type and content are the clear ones). */
  encrypted: z
    .object({ algorithm: z.unknown().optional(), session_id: z.string().optional() })
    .optional(),
  /** Set when the encrypted `event` could not be decrypted: matrix-js-sdk's failure code. */
  undecryptable: z.object({ code: z.string(), message: z.string() }).optional(),
});

/** One inbound Matrix event with its room. */
export type MatrixInbound = z.infer<typeof matrixInboundSchema>;

type Relation = {
  rel_type?: string;
  event_id?: string;
  is_falling_back?: boolean;
  "m.in_reply_to"?: { event_id?: string };
};

const relationOf = (content: Record<string, unknown>) =>
  (content["m.relates_to"] ?? undefined) as Relation | undefined;

/** The thread root of an event in an `m.thread`, if any. */
export function threadRootOfEvent(content: Record<string, unknown>): string | undefined {
  const rel = relationOf(content);
  return rel?.rel_type === "m.thread" && rel.event_id ? rel.event_id : undefined;
}

/** A legacy reply fallback (`> <@user:hs> quoted` lines and a blank line) stripped off a body. */
export function stripReplyFallback(body: string): string {
  if (!body.startsWith("> ")) return body;
  const lines = body.split("\n");
  let i = 0;
  while (i < lines.length && lines[i]?.startsWith(">")) i++;
  if (lines[i] === "") i++;
  return lines.slice(i).join("\n");
}

/** The bot's own identity, known before the first event is classified. */
export type ReceiveIdentity = {
  /** The canonical user id (`/whoami`), compared case-exactly. */
  userId: string | undefined;
};

const MESSAGE_TYPES = new Set(["m.text", "m.notice", "m.emote", ...FILE_MSGTYPES]);

function targetOf(input: MatrixInbound): MessageTarget {
  const room = input.room_id;
  const root = threadRootOfEvent(input.event.content);
  if (root) return { kind: "thread", id: room, parentId: room, threadId: root };
  const count = input.joined_member_count;
  return { kind: count !== undefined && count <= 2 ? "direct" : "group", id: room };
}

function mentionsSelf(content: Record<string, unknown>, body: string, self: string | undefined) {
  if (!self) return false;
  const mentions = content["m.mentions"] as { user_ids?: unknown } | undefined;
  if (mentions && typeof mentions === "object") {
    return Array.isArray(mentions.user_ids) && mentions.user_ids.includes(self);
  }
  return body.includes(self);
}

function messageOf(
  input: MatrixInbound,
  content: Record<string, unknown>,
  identity: ReceiveIdentity,
  accountId: string | undefined,
): ChannelMessage {
  const { event } = input;
  const reply = relationOf(event.content)?.["m.in_reply_to"]?.event_id;
  const rawBody = typeof content.body === "string" ? content.body : "";
  const body = reply ? stripReplyFallback(rawBody) : rawBody;
  const ref = eventRef(input.room_id, event.event_id);
  const root = threadRootOfEvent(event.content);
  const isSelf = identity.userId !== undefined && event.sender === identity.userId;
  const file = inboundAttachmentOf(content);
  return {
    id: `matrix:${ref}`,
    channel: MATRIX_CHANNEL_ID,
    ...(accountId !== undefined ? { accountId } : {}),
    direction: "inbound",
    target: targetOf(input),
    sender: {
      id: event.sender,
      isBot: content.msgtype === "m.notice",
      ...(isSelf ? { isSelf: true } : {}),
    },
    // A file's body is its name (the spec's fallback text): the file is the attachment.
    body: {
      markdown: file ? "" : content.msgtype === "m.emote" ? `* ${body}` : body,
      literal: true,
    },
    ...(file ? { attachments: [file] } : {}),
    timestamp: event.origin_server_ts,
    platformMessageId: ref,
    threadAnchor: { threadId: root ?? event.event_id },
    mentions: { self: mentionsSelf(content, body, identity.userId) },
    raw: input,
  };
}

function normalizeEvent(
  input: MatrixInbound,
  identity: ReceiveIdentity,
  accountId: string | undefined,
): ChannelMessage | InboundEvent | InboundReaction | ReturnType<typeof ignore> {
  const { event } = input;
  const room = input.room_id;
  const base = {
    kind: "event" as const,
    channel: MATRIX_CHANNEL_ID,
    ...(accountId !== undefined ? { accountId } : {}),
    target: targetOf(input),
    actor: { id: event.sender },
    timestamp: event.origin_server_ts,
    raw: input,
  };
  switch (event.type) {
    case "m.room.encrypted":
      if (input.undecryptable) {
        const { code, message } = input.undecryptable;
        // The bot's own event (its key lost with an older store): ignored like every own event.
        if (identity.userId !== undefined && event.sender === identity.userId) {
          return ignore("own_event", `undecryptable own event (${code})`);
        }
        throw new MatrixDecryptionError(room, event.event_id, code, message);
      }
      throw new MatrixEncryptedRoomError(room);
    case "m.room.redaction": {
      const redacts = event.redacts ?? (event.content.redacts as string | undefined);
      if (!redacts) return ignore("malformed", "redaction without redacts");
      return {
        ...base,
        type: "message_deleted",
        id: `deleted:${eventRef(room, event.event_id)}`,
        platformMessageId: eventRef(room, redacts),
      };
    }
    case "m.reaction": {
      // [H23] an annotation → InboundReaction (its removal arrives as a redaction of the
      // reaction event: `message_deleted` naming that event).
      const rel = event.content["m.relates_to"] as
        | { rel_type?: unknown; event_id?: unknown; key?: unknown }
        | undefined;
      if (rel?.rel_type !== "m.annotation" || typeof rel.event_id !== "string")
        return ignore("malformed", "m.reaction without an m.annotation relation");
      if (typeof rel.key !== "string" || rel.key === "")
        return ignore("malformed", "m.reaction without a key");
      if (identity.userId !== undefined && event.sender === identity.userId)
        return ignore("own_event", "the bot's own reaction");
      return {
        kind: "reaction",
        id: `reaction:${eventRef(room, event.event_id)}`,
        channel: MATRIX_CHANNEL_ID,
        ...(accountId !== undefined ? { accountId } : {}),
        target: targetOf(input),
        sender: { id: event.sender },
        messageId: eventRef(room, rel.event_id),
        emoji: rel.key,
        removed: false,
        timestamp: event.origin_server_ts,
        raw: input,
      } satisfies InboundReaction;
    }
    case "m.room.member": {
      const membership = event.content.membership;
      const who = event.state_key ?? event.sender;
      if (membership !== "join" && membership !== "leave" && membership !== "ban")
        return ignore("membership", String(membership));
      return {
        ...base,
        type: membership === "join" ? "member_joined" : "member_left",
        id: `member:${eventRef(room, event.event_id)}`,
        members: [{ id: who }],
      };
    }
    case "m.room.message": {
      const msgtype = event.content.msgtype;
      if (typeof msgtype !== "string" || !MESSAGE_TYPES.has(msgtype))
        return ignore("unsupported_msgtype", String(msgtype));
      const rel = relationOf(event.content);
      if (rel?.rel_type === "m.replace" && rel.event_id) {
        const newContent = event.content["m.new_content"];
        if (!newContent || typeof newContent !== "object")
          return ignore("malformed", "m.replace without m.new_content");
        const original = eventRef(room, rel.event_id);
        const edited = messageOf(input, newContent as Record<string, unknown>, identity, accountId);
        return {
          ...base,
          type: "message_edited",
          id: `edited:${eventRef(room, event.event_id)}`,
          platformMessageId: original,
          message: { ...edited, platformMessageId: original },
        };
      }
      return messageOf(input, event.content, identity, accountId);
    }
    default:
      return ignore("not_a_message", event.type);
  }
}

/**
 * The receive adapter of one account.
 *
 * @param identity - read at every call: the `/whoami` identity may arrive after construction.
 */
export function createReceive(identity: ReceiveIdentity): MessageReceiveAdapter {
  return {
    normalize(raw, ctx) {
      const fragment = syncFragmentSchema.safeParse(raw);
      if (fragment.success) {
        // A malformed part of a /sync answer (syncShape.ts): dead-lettered with its path.
        throw new ReceiveValidationError(MATRIX_CHANNEL_ID, [
          { path: fragment.data.sync_path, message: fragment.data.problem },
        ]);
      }
      const input = parseInbound(matrixInboundSchema, raw, MATRIX_CHANNEL_ID);
      return normalizeEvent(input, identity, ctx.accountId);
    },
    classify(message, raw): MessageEventClass {
      const input = raw as MatrixInbound;
      const type = input.event?.type ?? "m.room.message";
      return {
        eventType: type,
        eventTypes: [type],
        isBotAuthor: message.sender?.isBot === true,
        isRoomish: message.target.kind !== "direct",
        mentionsSelf: message.mentions?.self === true,
        authorIds: message.sender ? [message.sender.id] : [],
      };
    },
    dedupeIdentity: (message) => message.platformMessageId ?? message.id,
    selfIds: () => (identity.userId ? [identity.userId] : []),
    idsCaseInsensitive: false,
  };
}
