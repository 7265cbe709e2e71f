/**
 * The fake's reactions, as Slack's Web API and Events API describe them: `reactions.add`
 * (`already_reacted` when this user already has that emoji there), `reactions.remove`
 * (`no_reaction` when not), `message_not_found` / `channel_not_found`, and the
 * `reaction_added` / `reaction_removed` events a person's reaction sends every connected bot.
 *
 * Sources: https://docs.slack.dev/reference/methods/reactions.add,
 * https://docs.slack.dev/reference/events/reaction_added
 *
 * @module
 */
import type { EventSender } from "./fakeEvents.ts";
import { method } from "./fakeMethods.ts";
import type { FakeSlackBot, FakeSlackCore } from "./fakeTypes.ts";
import { fail, ok } from "./fakeWire.ts";

/** Reactions per message (`channel:ts`) → emoji name → the users who reacted with it. */
const REACTIONS = new WeakMap<FakeSlackCore, Map<string, Map<string, Set<string>>>>();

function tableOf(fake: FakeSlackCore): Map<string, Map<string, Set<string>>> {
  let table = REACTIONS.get(fake);
  if (!table) {
    table = new Map();
    REACTIONS.set(fake, table);
  }
  return table;
}

/** The users per emoji on a message (`channel` + `ts`), as Slack's `reactions` array lists them. */
export function reactionsOn(
  fake: FakeSlackCore,
  channel: string,
  ts: string,
): Record<string, string[]> {
  const byEmoji = tableOf(fake).get(`${channel}:${ts}`) ?? new Map<string, Set<string>>();
  return Object.fromEntries(
    [...byEmoji].filter(([, users]) => users.size > 0).map(([name, users]) => [name, [...users]]),
  );
}

/**
 * Sets or clears `user`'s `name` on a message; the Slack error code when it already is so
 * (`already_reacted` / `no_reaction`) or the message is unknown.
 */
export function setReaction(
  fake: FakeSlackCore,
  input: { channel: string; ts: string; user: string; name: string; remove: boolean },
): string | undefined {
  if (!fake.channels.has(input.channel)) return "channel_not_found";
  if (!fake.message(input.channel, input.ts)) return "message_not_found";
  if (!/^[a-z0-9_+'-]+(::skin-tone-[2-6])?$/.test(input.name)) return "invalid_name";
  const table = tableOf(fake);
  const ref = `${input.channel}:${input.ts}`;
  const byEmoji = table.get(ref) ?? new Map<string, Set<string>>();
  table.set(ref, byEmoji);
  const users = byEmoji.get(input.name) ?? new Set<string>();
  byEmoji.set(input.name, users);
  if (input.remove) {
    if (!users.has(input.user)) return "no_reaction";
    users.delete(input.user);
  } else {
    if (users.has(input.user)) return "already_reacted";
    users.add(input.user);
  }
  return undefined;
}

/** Registers `reactions.add` and `reactions.remove`. */
export function registerReactionMethods(fake: FakeSlackCore): void {
  for (const remove of [false, true]) {
    method(fake, remove ? "reactions.remove" : "reactions.add", "react", (f, args, bot) => {
      const channel = String(args.channel ?? "");
      const ts = String(args.timestamp ?? "");
      const name = String(args.name ?? "");
      if (!channel || !ts) return fail("no_item_specified");
      const error = setReaction(f, { channel, ts, user: bot.userId, name, remove });
      return error ? fail(error) : ok();
    });
  }
}

/**
 * A person reacts (or takes a reaction back): stored, and a `reaction_added` /
 * `reaction_removed` event to every connected bot.
 * @returns the event (for redelivery tests).
 */
export async function userReact(
  fake: FakeSlackCore & { events: EventSender },
  input: { channel: string; ts: string; user: string; name: string; remove?: boolean },
  nextTs: () => string,
): Promise<Record<string, unknown>> {
  const error = setReaction(fake, { ...input, remove: input.remove === true });
  if (error) throw new Error(`fake reaction refused: ${error}`);
  const author = fake.message(input.channel, input.ts)?.user;
  const event = {
    type: input.remove ? "reaction_removed" : "reaction_added",
    user: input.user,
    reaction: input.name,
    ...(author ? { item_user: author } : {}),
    item: { type: "message", channel: input.channel, ts: input.ts },
    event_ts: nextTs(),
  };
  for (const bot of fake.bots as FakeSlackBot[]) {
    if (fake.events.connected(bot)) await fake.events.deliver(bot, event);
  }
  return event;
}
