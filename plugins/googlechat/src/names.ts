/**
 * Google Chat resource names (`spaces/S`, `spaces/S/threads/T`, `spaces/S/messages/M`): herald
 * keeps them exactly as the platform spells them — a target's `id` is the space name, its
 * `threadId` a thread name, a receipt's `platformMessageId` a message name. A thread target is
 * validated as `spaces/*\/threads/*` before anything is sent (CASES C35): a message name passed
 * as a thread name is a 400 `INVALID_ARGUMENT` on the real platform.
 *
 * Source: https://developers.google.com/workspace/chat/api/reference/rest/v1/spaces.messages
 *
 * @module
 */
import { GoogleChatRenderError } from "./errors.ts";

const SEGMENT = "[A-Za-z0-9_.~-]+";
const SPACE = new RegExp(`^spaces/${SEGMENT}$`);
const THREAD = new RegExp(`^(spaces/${SEGMENT})/threads/${SEGMENT}$`);
const MESSAGE = new RegExp(`^(spaces/${SEGMENT})/messages/${SEGMENT}$`);

/** True for a space name `spaces/S`. */
export const isSpaceName = (name: string): boolean => SPACE.test(name);
/** True for a thread name `spaces/S/threads/T`. */
export const isThreadName = (name: string): boolean => THREAD.test(name);
/** True for a message name `spaces/S/messages/M`. */
export const isMessageName = (name: string): boolean => MESSAGE.test(name);

/**
 * The space of a target id: `spaces/S` as is; a bare `S` becomes `spaces/S`.
 * @throws GoogleChatRenderError when it is neither.
 */
export function spaceNameOf(id: string): string {
  const name = id.startsWith("spaces/") ? id : `spaces/${id}`;
  if (!SPACE.test(name)) {
    throw new GoogleChatRenderError(
      `target.id: not a Google Chat space name: ${JSON.stringify(id)}`,
    );
  }
  return name;
}

/** The space a message or thread name belongs to, or undefined when it is neither. */
export function spaceOfName(name: string): string | undefined {
  return (THREAD.exec(name) ?? MESSAGE.exec(name))?.[1];
}

/** Why `thread` cannot be a thread name of `space`, or undefined when it can (C35). */
export function threadNameProblem(thread: string, space: string): string | undefined {
  if (isMessageName(thread)) {
    return `${JSON.stringify(thread)} is a message name, not a thread name (spaces/*/threads/*)`;
  }
  const m = THREAD.exec(thread);
  if (!m) return `${JSON.stringify(thread)} is not a thread name (spaces/*/threads/*)`;
  if (m[1] !== space) return `thread ${JSON.stringify(thread)} is not in ${space}`;
  return undefined;
}
