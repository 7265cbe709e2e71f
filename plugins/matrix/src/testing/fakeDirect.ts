/**
 * The fake homeserver's room creation and account data ([H23] DMs), as the spec describes them:
 * `POST /_matrix/client/v3/createRoom` (`invite`, `is_direct`, `preset`) → `{ room_id }`, the
 * creator joined and the invitees invited; `GET` / `PUT
 * /_matrix/client/v3/user/{userId}/account_data/{type}` (a user's own only; 404 `M_NOT_FOUND`
 * before the first `PUT`).
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#post_matrixclientv3createroom,
 * https://spec.matrix.org/latest/client-server-api/#client-config
 *
 * @module
 */
import type { FakeHomeserverCore, FakeRoom } from "./fakeTypes.ts";

/** Registers the routes; `createRoom` makes a room with these members joined. */
export function registerDirect(
  fake: FakeHomeserverCore,
  rooms: {
    createRoom(input: { members: string[]; direct?: boolean }): FakeRoom;
    invite(roomId: string, user: string, inviter: string): void;
  },
  accountData: Map<string, Record<string, unknown>>,
): void {
  const s = fake.server;
  const v3 = "/_matrix/client/v3";
  const auth = (header: string | undefined) => fake.userOfToken(header?.replace(/^Bearer\s+/i, ""));
  const unknownToken = () =>
    s.error({ status: 401, code: "M_UNKNOWN_TOKEN", description: "Invalid access token passed." });

  s.route("POST", `${v3}/createRoom`, "create_room", async (c) => {
    const user = auth(c.req.header("authorization"));
    if (!user) return unknownToken();
    const body = (await c.req.json().catch(() => ({}))) as {
      invite?: unknown;
      is_direct?: unknown;
    };
    const invite = Array.isArray(body.invite) ? body.invite.map(String) : [];
    const room = rooms.createRoom({ members: [user.userId], direct: body.is_direct === true });
    for (const other of invite) rooms.invite(room.id, other, user.userId);
    return c.json({ room_id: room.id });
  });

  const key = (userId: string, type: string) => `${userId}\u0000${type}`;
  s.route("GET", `${v3}/user/:userId/account_data/:type`, "read", (c) => {
    const user = auth(c.req.header("authorization"));
    if (!user) return unknownToken();
    if (user.userId !== c.req.param("userId"))
      return s.error({
        status: 403,
        code: "M_FORBIDDEN",
        description: "Cannot get account data for other users.",
      });
    const data = accountData.get(key(user.userId, c.req.param("type") as string));
    if (!data)
      return s.error({ status: 404, code: "M_NOT_FOUND", description: "Account data not found" });
    return c.json(data);
  });
  s.route("PUT", `${v3}/user/:userId/account_data/:type`, "account_data", async (c) => {
    const user = auth(c.req.header("authorization"));
    if (!user) return unknownToken();
    if (user.userId !== c.req.param("userId"))
      return s.error({
        status: 403,
        code: "M_FORBIDDEN",
        description: "Cannot add account data for other users.",
      });
    accountData.set(key(user.userId, c.req.param("type") as string), await c.req.json());
    return c.json({});
  });
}
