/**
 * Where a Telegram message lives, as a herald target: a private chat is `direct`; a group or
 * supergroup `group`; a forum topic (`is_topic_message`) a `thread` with `threadId` =
 * `message_thread_id`; the General topic is the group itself; a channel is `channel`.
 *
 * @module
 */
import type { MessageTarget } from "@herald/plugin-sdk/channel-message";
import type { TelegramMessage } from "./updates.ts";

/** The target of a message (or of a callback query's message). */
export function targetOf(m: {
  chat: TelegramMessage["chat"];
  message_thread_id?: number | undefined;
  is_topic_message?: boolean | undefined;
}): MessageTarget {
  const id = String(m.chat.id);
  const label = m.chat.title ?? m.chat.username ?? m.chat.first_name;
  const base = label ? { id, label } : { id };
  if (m.chat.type === "private") return { kind: "direct", ...base };
  if (m.chat.type === "channel") return { kind: "channel", ...base };
  if (m.is_topic_message && m.message_thread_id !== undefined) {
    return { kind: "thread", ...base, parentId: id, threadId: String(m.message_thread_id) };
  }
  return { kind: "group", ...base };
}
