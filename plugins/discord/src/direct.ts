/**
 * Direct messages on Discord ([H23]; PLATFORMS.md §10): `directMessages.open` is Create DM,
 * `POST /users/@me/channels` with `recipient_id`, through discord.js's REST; Discord answers the
 * existing DM channel when there is one, so opening is idempotent. 10013 Unknown User and 50007
 * "Cannot send messages to this user" become `DirectMessageUnavailableError` (reasons
 * `unknown_user`, `cannot_message_user`).
 *
 * Source: https://discord.com/developers/docs/resources/user#create-dm
 *
 * @module
 */
import {
  DirectMessageUnavailableError,
  type MessageDirectAdapter,
} from "@herald/plugin-sdk/channel-message";
import { DISCORD_CHANNEL_ID } from "./account.ts";
import type { DiscordRest } from "./client.ts";
import { DiscordApiError } from "./errors.ts";

/** Discord's codes that mean "no DM with this user", and the reason named. */
const UNAVAILABLE: Readonly<Record<number, string>> = {
  10013: "unknown_user",
  50007: "cannot_message_user",
};

/** The adapter's `directMessages` (see the module notes). */
export function createDirect(rest: DiscordRest): MessageDirectAdapter {
  return {
    async open(ctx, { userId }) {
      try {
        const channel = await rest.call<{ id: string }>({
          method: "POST",
          route: "/users/@me/channels",
          body: { recipient_id: userId },
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        });
        return { kind: "direct", id: channel.id };
      } catch (error) {
        const reason =
          error instanceof DiscordApiError && error.discordCode !== undefined
            ? UNAVAILABLE[error.discordCode]
            : undefined;
        if (reason) {
          throw new DirectMessageUnavailableError(DISCORD_CHANNEL_ID, userId, reason, {
            cause: error,
          });
        }
        throw error;
      }
    },
  };
}
