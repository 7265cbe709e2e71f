/**
 * The fake's Get Channel Messages, as Discord's API describes it: `GET
 * /channels/{channel}/messages?limit&before` answers up to `limit` (1-100, default 50) messages
 * newest first, older than `before` when given; deleted messages are gone; 10003 Unknown
 * Channel.
 *
 * Source: https://discord.com/developers/docs/resources/message#get-channel-messages
 *
 * @module
 */
import type { Context, FakePlatformEnv } from "@herald/plugin-sdk/testing";
import type { FakeDiscordCore } from "./fakeTypes.ts";
import { errorResponse, FakeDiscordError, invalidForm } from "./fakeWire.ts";

/** Registers Get Channel Messages (fault op `read`). */
export function registerHistoryRoutes(fake: FakeDiscordCore): void {
  fake.server.route(
    "GET",
    "/api/v10/channels/:channel/messages",
    "read",
    (c: Context<FakePlatformEnv>) => {
      try {
        if (!fake.botOfToken(c.req.header("authorization"))) {
          throw new FakeDiscordError(401, 0, "401: Unauthorized");
        }
        const channel = fake.channels.get(c.req.param("channel") ?? "");
        if (!channel) throw new FakeDiscordError(404, 10003, "Unknown Channel");
        const limit = Number(c.req.query("limit") ?? "50");
        if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
          throw invalidForm("limit", "NUMBER_TYPE_MAX", "int value should be between 1 and 100");
        }
        const before = c.req.query("before");
        const list = [...fake.stored.values()]
          .filter(
            (m) =>
              m.channelId === channel.id &&
              !fake.state.get(m.json.id as string)?.deleted &&
              (before === undefined || BigInt(m.json.id as string) < BigInt(before)),
          )
          .sort((a, b) => (BigInt(b.json.id as string) > BigInt(a.json.id as string) ? 1 : -1))
          .slice(0, limit)
          .map((m) => {
            // Discord does not return the nonce on REST reads.
            const { nonce: _nonce, ...rest } = m.json;
            return rest;
          });
        return Response.json(list);
      } catch (error) {
        if (!(error instanceof FakeDiscordError)) throw error;
        return errorResponse(error);
      }
    },
  );
}
