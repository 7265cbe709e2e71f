/**
 * Telegram updates that are not messages for the bot: membership service messages become typed
 * events (`member_joined` from `new_chat_members`, `member_left` from `left_chat_member`); every
 * other service message and every update kind herald does not handle is answered
 * `ignore(reason)` — logged and counted by herald, never dropped silently.
 *
 * Source: https://core.telegram.org/bots/api#message (`new_chat_members`, `left_chat_member`)
 *
 * @module
 */
import {
  type InboundEvent,
  type InboundIgnore,
  ignore,
  type MessageActor,
  parseInbound,
  z,
} from "@herald/plugin-sdk/channel-message";
import { targetOf } from "./target.ts";
import { chatSchema, MESSAGE_UPDATE_KINDS, userSchema } from "./updates.ts";

const TELEGRAM = "telegram";

const serviceSchema = z.looseObject({
  update_id: z.number().int(),
  message: z.looseObject({
    message_id: z.number().int(),
    date: z.number().int(),
    chat: chatSchema,
    from: userSchema.optional(),
    message_thread_id: z.number().int().optional(),
    is_topic_message: z.boolean().optional(),
    new_chat_members: z.array(userSchema).optional(),
    left_chat_member: userSchema.optional(),
  }),
});

const actor = (u: z.infer<typeof userSchema>): MessageActor => ({
  id: String(u.id),
  isBot: u.is_bot,
  displayName: [u.first_name, u.last_name].filter(Boolean).join(" "),
});

/**
 * Answers an update that `isInboundUpdate` rejected: a membership event, or an ignore naming
 * the update kind (`unsupported_update`) or the service message field (`service_message`).
 *
 * @throws ReceiveValidationError when a membership service message is malformed (dead-lettered).
 */
export function serviceUpdate(raw: unknown, accountId?: string): InboundEvent | InboundIgnore {
  const u = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
  const kind = MESSAGE_UPDATE_KINDS.find((k) => u[k] !== undefined);
  if (!kind) {
    const field = Object.keys(u).find((k) => k !== "update_id") ?? "empty";
    return ignore("unsupported_update", field);
  }
  const m = u[kind] as Record<string, unknown>;
  if (
    kind === "message" &&
    (m.new_chat_members !== undefined || m.left_chat_member !== undefined)
  ) {
    const { message } = parseInbound(serviceSchema, raw, TELEGRAM);
    const joined = message.new_chat_members;
    const type = joined ? "member_joined" : "member_left";
    const members = joined ?? (message.left_chat_member ? [message.left_chat_member] : []);
    return {
      kind: "event",
      type,
      id: `${type}:${message.chat.id}:${message.message_id}`,
      channel: TELEGRAM,
      ...(accountId === undefined ? {} : { accountId }),
      target: targetOf(message),
      ...(message.from ? { actor: actor(message.from) } : {}),
      members: members.map(actor),
      platformMessageId: `${message.chat.id}:${message.message_id}`,
      timestamp: message.date * 1_000,
      raw,
    };
  }
  const field = Object.keys(m).find(
    (k) =>
      ![
        "message_id",
        "date",
        "chat",
        "from",
        "sender_chat",
        "message_thread_id",
        "is_topic_message",
      ].includes(k),
  );
  return ignore("service_message", `${kind}.${field ?? "unknown"}`);
}
