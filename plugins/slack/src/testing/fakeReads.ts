/**
 * The fake's history reads: `conversations.history` (top-level messages and broadcasts, newest
 * first) and `conversations.replies` (the root, then its replies, oldest first), with `oldest`
 * / `latest` bounds, cursors, `include_all_metadata`, and Slack's read limits for apps outside
 * the Marketplace (PLATFORMS.md §8): at most `historyPageLimit` messages a page and one read per
 * `historyIntervalMs` per token and method — a faster read answers HTTP 429 with `Retry-After`.
 *
 * @module
 */
import { method } from "./fakeMethods.ts";
import type { FakeChannel, FakeSlackBot, FakeSlackCore, FakeSlackMessage } from "./fakeTypes.ts";
import { boolField, fail, ok } from "./fakeWire.ts";

const tsNumber = (ts: string) => Number(ts);

function paced(fake: FakeSlackCore, last: Map<string, number>, key: string): Response | undefined {
  const interval = fake.historyIntervalMs;
  if (interval <= 0) return undefined;
  const now = Date.now();
  const previous = last.get(key);
  if (previous !== undefined && now - previous < interval) {
    const seconds = Math.max(1, Math.ceil((interval - (now - previous)) / 1_000));
    return Response.json(
      { ok: false, error: "ratelimited" },
      { status: 429, headers: { "retry-after": String(seconds) } },
    );
  }
  last.set(key, now);
  return undefined;
}

function page(
  fake: FakeSlackCore,
  list: FakeSlackMessage[],
  args: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Response {
  const limit = Math.min(Number(args.limit ?? 100) || 100, fake.historyPageLimit);
  const cursor = typeof args.cursor === "string" && args.cursor ? args.cursor : undefined;
  const offset = cursor ? Number(Buffer.from(cursor, "base64url").toString().slice(2)) : 0;
  if (!Number.isInteger(offset) || offset < 0) return fail("invalid_cursor");
  const slice = list.slice(offset, offset + limit);
  const more = offset + limit < list.length;
  const withMetadata = boolField(args.include_all_metadata);
  return ok({
    ...extra,
    messages: slice.map((m) => fake.messageJson(m, withMetadata)),
    has_more: more,
    ...(more
      ? {
          response_metadata: {
            next_cursor: Buffer.from(`o:${offset + limit}`).toString("base64url"),
          },
        }
      : {}),
  });
}

function inWindow(m: FakeSlackMessage, args: Record<string, unknown>): boolean {
  const t = tsNumber(m.ts);
  const inclusive = boolField(args.inclusive);
  if (typeof args.oldest === "string" && args.oldest) {
    const o = tsNumber(args.oldest);
    if (inclusive ? t < o : t <= o) return false;
  }
  if (typeof args.latest === "string" && args.latest) {
    const l = tsNumber(args.latest);
    if (inclusive ? t > l : t >= l) return false;
  }
  return true;
}

/** Slack's conversation object of a fake channel, as `users.conversations` lists it. */
function conversationJson(c: FakeChannel): Record<string, unknown> {
  if (c.type === "im") {
    return {
      id: c.id,
      created: 1_700_000_000,
      is_im: true,
      is_org_shared: false,
      user: "UALICE001",
      priority: 0,
    };
  }
  const name = c.name ?? c.id.toLowerCase();
  const blank = { value: "", creator: "", last_set: 0 };
  return {
    id: c.id,
    name,
    name_normalized: name,
    created: 1_700_000_000,
    creator: "UALICE001",
    is_archived: c.archived,
    is_channel: true,
    is_general: false,
    is_mpim: false,
    is_group: false,
    is_org_shared: false,
    is_im: false,
    is_shared: false,
    is_private: false,
    topic: blank,
    purpose: blank,
  };
}

/**
 * Registers `users.conversations` (op `list`): the conversations the calling bot is a member
 * of, filtered by `types` (`public_channel`, `private_channel`, `mpim`, `im`) and
 * `exclude_archived`, paged with `limit` / `cursor` (docs.slack.dev/reference/methods/users.conversations).
 */
function registerMembershipMethods(fake: FakeSlackCore): void {
  method(fake, "users.conversations", "list", (f, args, bot) => {
    const types = String(args.types ?? "public_channel")
      .split(",")
      .map((t) => t.trim());
    const limit = Math.min(Math.max(Number(args.limit ?? 100) || 100, 1), 1_000);
    const cursor = typeof args.cursor === "string" && args.cursor ? args.cursor : undefined;
    const offset = cursor ? Number(Buffer.from(cursor, "base64url").toString().slice(2)) : 0;
    if (!Number.isInteger(offset) || offset < 0) return fail("invalid_cursor");
    const all = [...f.channels.values()].filter(
      (c) =>
        (c.members === undefined || c.members.has(bot.userId)) &&
        (c.type === "im" ? types.includes("im") : types.includes("public_channel")) &&
        !(boolField(args.exclude_archived) && c.archived),
    );
    const slice = all.slice(offset, offset + limit);
    const more = offset + limit < all.length;
    return ok({
      channels: slice.map(conversationJson),
      response_metadata: {
        next_cursor: more ? Buffer.from(`o:${offset + limit}`).toString("base64url") : "",
      },
    });
  });
}

/** Registers `conversations.history` and `conversations.replies` (op `read`), `users.conversations`. */
export function registerReadMethods(fake: FakeSlackCore): void {
  registerMembershipMethods(fake);
  const last = new Map<string, number>();
  const live = (channel: string) =>
    [...fake.messagesByRef.values()].filter(
      (m) => m.channel === channel && fake.message(m.channel, m.ts) !== undefined,
    );
  const throttled = (bot: FakeSlackBot, name: string) => paced(fake, last, `${bot.token}|${name}`);

  method(fake, "conversations.history", "read", (f, args, bot) => {
    const channel = String(args.channel ?? "");
    if (!f.channels.has(channel)) return fail("channel_not_found");
    const limited = throttled(bot, "conversations.history");
    if (limited) return limited;
    const list = live(channel)
      .filter((m) => (m.threadTs === undefined || m.broadcast) && inWindow(m, args))
      .sort((a, b) => tsNumber(b.ts) - tsNumber(a.ts));
    // Every history answer has these (slack-api-specs requires them); the fake pins nothing and
    // has no channel actions.
    return page(f, list, args, {
      pin_count: 0,
      channel_actions_ts: null,
      channel_actions_count: 0,
    });
  });

  method(fake, "conversations.replies", "read", (f, args, bot) => {
    const channel = String(args.channel ?? "");
    if (!f.channels.has(channel)) return fail("channel_not_found");
    const root = f.message(channel, String(args.ts ?? ""));
    if (!root) return fail("thread_not_found");
    const limited = throttled(bot, "conversations.replies");
    if (limited) return limited;
    const replies = live(channel)
      .filter((m) => m.threadTs === root.ts && inWindow(m, args))
      .sort((a, b) => tsNumber(a.ts) - tsNumber(b.ts));
    return page(f, [root, ...replies], args);
  });
}
