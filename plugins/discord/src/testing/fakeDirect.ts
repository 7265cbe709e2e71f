/**
 * The fake's Create DM, as Discord's API describes it: `POST /users/@me/channels` with
 * `recipient_id` answers the DM channel (type 1) between the bot and that user — the same
 * channel on every call — and 50007 "Cannot send messages to this user" / 10013 Unknown User
 * for users the fake does not know.
 *
 * Source: https://discord.com/developers/docs/resources/user#create-dm
 *
 * @module
 */
import type { Context, FakePlatformEnv } from "@herald/plugin-sdk/testing";
import { channelJson } from "./fakeRest.ts";
import type { FakeChannel, FakeDiscordCore, FakeUser } from "./fakeTypes.ts";
import { errorResponse, FakeDiscordError, readBody, USER_DEFAULTS } from "./fakeWire.ts";

/** `bot:user` → DM channel id. */
const DMS = new WeakMap<FakeDiscordCore, Map<string, string>>();

/** The DM channel the fake opened between `botId` and `userId`, if any. */
export function directChannelOf(
  fake: FakeDiscordCore,
  botId: string,
  userId: string,
): string | undefined {
  return DMS.get(fake)?.get(`${botId}:${userId}`);
}

/** Registers Create DM (fault op `read`); `users` are the people the fake knows. */
export function registerDirectRoutes(
  fake: FakeDiscordCore & {
    createChannel(input: { type: FakeChannel["type"]; botId?: string }): FakeChannel;
  },
  users: readonly FakeUser[],
): void {
  fake.server.route(
    "POST",
    "/api/v10/users/@me/channels",
    "read",
    async (c: Context<FakePlatformEnv>) => {
      const bot = fake.botOfToken(c.req.header("authorization"));
      try {
        if (!bot) throw new FakeDiscordError(401, 0, "401: Unauthorized");
        const { json: body } = await readBody(c);
        const recipient = String(body.recipient_id ?? "");
        const user = users.find((u) => u.id === recipient);
        if (!user) throw new FakeDiscordError(404, 10013, "Unknown User");
        let dms = DMS.get(fake);
        if (!dms) {
          dms = new Map();
          DMS.set(fake, dms);
        }
        const key = `${bot.id}:${recipient}`;
        let id = dms.get(key);
        if (!id) {
          id = fake.createChannel({ type: "dm", botId: bot.id }).id;
          dms.set(key, id);
        }
        const json = channelJson(fake, id);
        return Response.json({
          ...json,
          last_message_id: null,
          recipients: [
            {
              id: user.id,
              username: user.username,
              discriminator: "0",
              avatar: null,
              ...USER_DEFAULTS,
            },
          ],
        });
      } catch (error) {
        if (!(error instanceof FakeDiscordError)) throw error;
        return errorResponse(error);
      }
    },
  );
}
