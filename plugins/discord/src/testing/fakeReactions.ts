/**
 * The fake's reactions, as Discord's API describes them: `PUT` / `DELETE`
 * `/channels/{channel}/messages/{message}/reactions/{emoji}/@me` answer 204 whether or not the
 * bot's reaction was there (idempotent), 10008 Unknown Message, 10003 Unknown Channel, 10014
 * Unknown Emoji for a custom emoji the fake does not know; and the reactions people make.
 *
 * Sources: https://discord.com/developers/docs/resources/message#create-reaction,
 * https://discord.com/developers/docs/resources/message#delete-own-reaction
 *
 * @module
 */
import type { Context, FakePlatformEnv } from "@herald/plugin-sdk/testing";
import type { FakeDiscordCore } from "./fakeTypes.ts";
import { errorResponse, FakeDiscordError } from "./fakeWire.ts";

const V = "/api/v10";

/** Message id → emoji (`👍` or `name:id`) → the users who reacted. */
const REACTIONS = new WeakMap<FakeDiscordCore, Map<string, Map<string, Set<string>>>>();

function tableOf(fake: FakeDiscordCore) {
  let table = REACTIONS.get(fake);
  if (!table) {
    table = new Map();
    REACTIONS.set(fake, table);
  }
  return table;
}

/** The users per emoji on message `id`. */
export function discordReactionsOn(fake: FakeDiscordCore, id: string): Record<string, string[]> {
  const byEmoji = tableOf(fake).get(id) ?? new Map<string, Set<string>>();
  return Object.fromEntries(
    [...byEmoji].filter(([, users]) => users.size > 0).map(([emoji, users]) => [emoji, [...users]]),
  );
}

/** Sets or clears `user`'s `emoji` on message `id` (idempotent, like Discord). */
export function setDiscordReaction(
  fake: FakeDiscordCore,
  id: string,
  emoji: string,
  user: string,
  remove: boolean,
): void {
  const table = tableOf(fake);
  const byEmoji = table.get(id) ?? new Map<string, Set<string>>();
  table.set(id, byEmoji);
  const users = byEmoji.get(emoji) ?? new Set<string>();
  byEmoji.set(emoji, users);
  if (remove) users.delete(user);
  else users.add(user);
}

/** Registers the own-reaction routes (fault op `react`). */
export function registerReactionRoutes(fake: FakeDiscordCore): void {
  for (const method of ["PUT", "DELETE"] as const) {
    fake.server.route(
      method,
      `${V}/channels/:channel/messages/:id/reactions/:emoji/@me`,
      "react",
      (c: Context<FakePlatformEnv>) => {
        const bot = fake.botOfToken(c.req.header("authorization"));
        try {
          if (!bot) throw new FakeDiscordError(401, 0, "401: Unauthorized");
          const channel = fake.channels.get(c.req.param("channel") ?? "");
          if (!channel) throw new FakeDiscordError(404, 10003, "Unknown Channel");
          const id = c.req.param("id") ?? "";
          const stored = fake.stored.get(id);
          if (!stored || stored.channelId !== channel.id || fake.state.get(id)?.deleted) {
            throw new FakeDiscordError(404, 10008, "Unknown Message");
          }
          const emoji = decodeURIComponent(c.req.param("emoji") ?? "");
          // A custom emoji is `name:id`; the fake knows none. Unicode: any non-ASCII text.
          if (![...emoji].some((ch) => (ch.codePointAt(0) ?? 0) > 0x7f)) {
            throw new FakeDiscordError(400, 10014, "Unknown Emoji");
          }
          setDiscordReaction(fake, id, emoji, bot.id, method === "DELETE");
          return new Response(null, { status: 204 });
        } catch (error) {
          if (!(error instanceof FakeDiscordError)) throw error;
          return errorResponse(error);
        }
      },
    );
  }
}
