/**
 * The fake's `conversations.open`: the DM (`im`) between the bot and one user, created on the
 * first call and the same channel on every later one (`no_op: true, already_open: true`), as
 * Slack answers. `user_not_found` for an id the fake does not know, `cannot_dm_bot` for a bot
 * user; `users_list_not_supplied` without `users`. And `chat.postEphemeral`: a message only
 * `user` sees in `channel` (kept in {@link ephemeralsOf}, never in history, answered with its
 * `message_ts`); `user_not_in_channel` for a user the fake does not know.
 *
 * Sources: https://docs.slack.dev/reference/methods/conversations.open,
 * https://docs.slack.dev/reference/methods/chat.postEphemeral
 *
 * @module
 */
import { method } from "./fakeMethods.ts";
import type { FakeChannel, FakeSlackCore, FakeSlackUser } from "./fakeTypes.ts";
import { fail, ok } from "./fakeWire.ts";

/** `bot user:user` → the DM channel id. */
const DMS = new WeakMap<FakeSlackCore, Map<string, string>>();

/** The DM channel the fake opened between `botUserId` and `userId`, if any. */
export function directChannelOf(
  fake: FakeSlackCore,
  botUserId: string,
  userId: string,
): string | undefined {
  return DMS.get(fake)?.get(`${botUserId}:${userId}`);
}

/** An ephemeral message as the fake keeps it. */
export type FakeEphemeral = {
  channel: string;
  user: string;
  text: string;
  threadTs?: string;
  ts: string;
};

const EPHEMERALS = new WeakMap<FakeSlackCore, FakeEphemeral[]>();

/** The ephemeral messages posted on the fake, in order. */
export function ephemeralsOf(fake: FakeSlackCore): FakeEphemeral[] {
  let list = EPHEMERALS.get(fake);
  if (!list) {
    list = [];
    EPHEMERALS.set(fake, list);
  }
  return list;
}

/**
 * Registers `conversations.open` (fault op `read`) and `chat.postEphemeral` (fault op
 * `send`); `users` are the people the fake knows.
 */
export function registerDirectMethods(
  fake: FakeSlackCore & {
    createChannel(input: { type: "im" }): FakeChannel;
    nextTs(): string;
  },
  users: readonly FakeSlackUser[],
): void {
  method(fake, "conversations.open", "read", (f, args, bot) => {
    const wanted = typeof args.users === "string" ? args.users.split(",").filter(Boolean) : [];
    if (wanted.length === 0) return fail("users_list_not_supplied");
    const user = wanted[0] as string;
    if (wanted.length > 1) return fail("not_implemented", { detail: "multi-person DMs" });
    if (f.bots.some((b) => b.userId === user)) return fail("cannot_dm_bot");
    if (!users.some((u) => u.id === user)) return fail("user_not_found");
    let dms = DMS.get(f);
    if (!dms) {
      dms = new Map();
      DMS.set(f, dms);
    }
    const key = `${bot.userId}:${user}`;
    const existing = dms.get(key);
    if (existing) return ok({ no_op: true, already_open: true, channel: { id: existing } });
    const channel = fake.createChannel({ type: "im" });
    dms.set(key, channel.id);
    return ok({ channel: { id: channel.id } });
  });

  method(fake, "chat.postEphemeral", "send", (f, args) => {
    const channel = String(args.channel ?? "");
    const user = String(args.user ?? "");
    const text = typeof args.text === "string" ? args.text : "";
    if (!f.channels.has(channel)) return fail("channel_not_found");
    if (!users.some((u) => u.id === user)) return fail("user_not_in_channel");
    if (text.trim() === "" && args.blocks === undefined) return fail("no_text");
    const ts = fake.nextTs();
    const threadTs = typeof args.thread_ts === "string" ? args.thread_ts : undefined;
    ephemeralsOf(f).push({ channel, user, text, ts, ...(threadTs ? { threadTs } : {}) });
    return ok({ message_ts: ts });
  });
}
