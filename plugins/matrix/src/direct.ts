/**
 * Direct messages on Matrix ([H23]): the DM room with a user is the one the bot's `m.direct`
 * account data lists for them (and the bot is still joined to); when there is none, a room is
 * created (`POST /createRoom` with `is_direct: true`, `invite: [user]`,
 * `preset: "trusted_private_chat"`) and added to `m.direct` — so a restart finds the same room,
 * never a new room per restart. Opens for one user are serialized in the process. A crash between
 * `createRoom` and the `m.direct` update leaves an empty room and creates another on the next
 * open (the spec has no idempotency key for `createRoom`).
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#direct-messaging,
 * https://spec.matrix.org/latest/client-server-api/#post_matrixclientv3createroom
 *
 * @module
 */
import {
  DirectMessageUnavailableError,
  type MessageDirectAdapter,
  type MessageTarget,
} from "@herald/plugin-sdk/channel-message";
import { type MatrixHttp, seg } from "./client.ts";
import { MatrixApiError } from "./errors.ts";

const GET_DIRECT = "GET /user/{userId}/account_data/m.direct";
const PUT_DIRECT = "PUT /user/{userId}/account_data/m.direct";
const MEMBER = "GET /rooms/{roomId}/state/m.room.member/{userId}";
const CREATE = "POST /createRoom";

/** A Matrix user id (`@localpart:server`). */
const USER_ID = /^@[^:\s]+:[^\s]+$/;

type DirectMap = Record<string, string[]>;

/**
 * The DM adapter of one account.
 * @param me - the bot's user id (its account data holds `m.direct`).
 */
export function createDirect(http: MatrixHttp, me: string | undefined): MessageDirectAdapter {
  const pending = new Map<string, Promise<MessageTarget>>();

  const readDirect = async (signal: AbortSignal | undefined, self: string): Promise<DirectMap> => {
    try {
      const data = await http.request<Record<string, unknown>>(
        "GET",
        `/user/${seg(self)}/account_data/m.direct`,
        GET_DIRECT,
        { signal },
      );
      const out: DirectMap = {};
      for (const [user, rooms] of Object.entries(data ?? {})) {
        if (Array.isArray(rooms)) out[user] = rooms.filter((r) => typeof r === "string");
      }
      return out;
    } catch (error) {
      if (error instanceof MatrixApiError && error.status === 404) return {};
      throw error;
    }
  };

  const joined = async (signal: AbortSignal | undefined, room: string, self: string) => {
    try {
      const member = await http.request<{ membership?: unknown }>(
        "GET",
        `/rooms/${seg(room)}/state/m.room.member/${seg(self)}`,
        MEMBER,
        { signal },
      );
      return member?.membership === "join";
    } catch (error) {
      // Not in the room any more (403), or it is gone (404): not this user's DM now.
      if (error instanceof MatrixApiError && (error.status === 403 || error.status === 404))
        return false;
      throw error;
    }
  };

  const open = async (
    signal: AbortSignal | undefined,
    self: string,
    userId: string,
  ): Promise<MessageTarget> => {
    const direct = await readDirect(signal, self);
    for (const room of [...(direct[userId] ?? [])].reverse()) {
      if (await joined(signal, room, self)) return { kind: "direct", id: room };
    }
    const created = await http.request<{ room_id?: unknown }>("POST", "/createRoom", CREATE, {
      body: { is_direct: true, invite: [userId], preset: "trusted_private_chat" },
      signal,
    });
    if (typeof created?.room_id !== "string") {
      throw new DirectMessageUnavailableError(
        "matrix",
        userId,
        "createRoom answered without a room_id",
      );
    }
    await http.request("PUT", `/user/${seg(self)}/account_data/m.direct`, PUT_DIRECT, {
      body: { ...direct, [userId]: [...(direct[userId] ?? []), created.room_id] },
      signal,
    });
    return { kind: "direct", id: created.room_id };
  };

  return {
    /**
     * @throws DirectMessageUnavailableError (`invalid_user_id`) for an id that is not `@user:server`.
     * @throws MatrixApiError when the homeserver refuses (an unknown user: `createRoom` 400/404).
     */
    async open(ctx, { userId }) {
      if (!USER_ID.test(userId)) {
        throw new DirectMessageUnavailableError(
          "matrix",
          userId,
          "invalid_user_id (not @user:server)",
        );
      }
      if (me === undefined) {
        throw new TypeError(
          "matrix: opening a DM needs the bot's user id (config.userId or /whoami)",
        );
      }
      const running = pending.get(userId);
      if (running) return running;
      const work = open(ctx.signal, me, userId).finally(() => pending.delete(userId));
      pending.set(userId, work);
      return work;
    },
  };
}
