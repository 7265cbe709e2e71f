/**
 * The fake's `auth.*`, `bots.*` and `chat.*` methods (post, update, delete), each tagged with
 * its platform-neutral op so scripted faults apply (`send`, `edit`, `delete`, `auth`).
 *
 * @module
 */
import type { Context } from "@herald/plugin-sdk/testing";
import type { FakeSlackBot, FakeSlackCore } from "./fakeTypes.ts";
import { boolField, fail, jsonField, ok, readArgs } from "./fakeWire.ts";

/** Slack's hard text limit (longer text is refused here, so an adapter overflow shows). */
const TEXT_LIMIT = 40_000;

/** The request's arguments and the bot its token belongs to (or the error answer). */
export async function authorize(
  fake: FakeSlackCore,
  c: Context,
): Promise<{ args: Record<string, unknown>; bot: FakeSlackBot } | { answer: Response }> {
  const args = await readArgs(c.req.raw);
  const header = c.req.header("authorization") ?? "";
  const token = header.startsWith("Bearer ") ? header.slice(7) : (args.token as string | undefined);
  if (!token) return { answer: fail("not_authed") };
  const bot = fake.botOfToken(token);
  if (!bot) return { answer: fail("invalid_auth") };
  return { args, bot };
}

type Handler = (
  fake: FakeSlackCore,
  args: Record<string, unknown>,
  bot: FakeSlackBot,
) => Response | Promise<Response>;

/** Registers one Web API method on the fake. */
export function method(fake: FakeSlackCore, name: string, op: string, handler: Handler): void {
  fake.server.route("POST", `/api/${name}`, op, async (c) => {
    const auth = await authorize(fake, c);
    if ("answer" in auth) return auth.answer;
    return handler(fake, auth.args, auth.bot);
  });
}

/** Posts a bot message after Slack's checks; shared by `chat.postMessage` and streams. */
export function postAsBot(
  fake: FakeSlackCore,
  methodName: string,
  args: Record<string, unknown>,
  bot: FakeSlackBot,
  text: string,
): Response | { ts: string; channel: string; hiddenMessage?: Record<string, unknown> } {
  const channelId = String(args.channel ?? "");
  const threadTs =
    typeof args.thread_ts === "string" && args.thread_ts ? args.thread_ts : undefined;
  const replyBroadcast = boolField(args.reply_broadcast);
  const at = Date.now();
  const record = (outcome: string) =>
    fake.posts.push({
      method: methodName,
      channel: channelId,
      replyBroadcast,
      outcome,
      at,
      ...(threadTs ? { threadTs } : {}),
    });
  const refuse = (error: string) => {
    record(error);
    return fail(error);
  };
  const channel = fake.channels.get(channelId);
  if (!channel) return refuse("channel_not_found");
  if (channel.archived) return refuse("is_archived");
  if (text.length > TEXT_LIMIT) return refuse("msg_too_long");
  if (threadTs !== undefined) {
    const root = fake.message(channelId, threadTs);
    // Slack threads hang off a root: a reply's ts is not a thread.
    if (!root || root.threadTs !== undefined) return refuse("thread_not_found");
  }
  const limited = overPostLimit(fake, channelId);
  if (limited) {
    record("ratelimited");
    return limited;
  }
  const metadata = jsonField(args.metadata) as
    | { event_type: string; event_payload?: Record<string, unknown> }
    | undefined;
  const quoted = quotedOf(fake, args.attachments);
  const blocks = jsonField(args.blocks);
  const stored = fake.addMessage({
    channel: channelId,
    text,
    ...(Array.isArray(blocks) ? { blocks } : {}),
    ...(quoted ? { replyTo: quoted.visibleId } : {}),
    user: bot.userId,
    bot,
    name: bot.name,
    broadcast: replyBroadcast && threadTs !== undefined,
    ...(threadTs ? { threadTs } : {}),
    ...(metadata && typeof metadata === "object" ? { metadata } : {}),
  });
  if (overShownLimit(fake, channelId, at)) {
    // Accepted, answered ok, never shown: the burst Slack does not store or display.
    // Slack's answer still carries the message (slack-api-specs: `chat.postMessage` requires it).
    const hiddenMessage = fake.messageJson(stored, true);
    fake.state.delete(stored.visibleId);
    fake.postsHidden.push({ channel: channelId, ts: stored.ts, text });
    record("ok_hidden");
    return { ts: stored.ts, channel: channelId, hiddenMessage };
  }
  record("ok");
  return { ts: stored.ts, channel: channelId };
}

/**
 * True when a post to `channel` at `at` is one more than Slack shows in a second
 * (`postsShownPerChannelPerSecond`, PLATFORMS.md §9: "no guarantee that messages will be stored
 * or displayed"); a shown post is counted.
 */
function overShownLimit(fake: FakeSlackCore, channel: string, at: number): boolean {
  const limit = fake.postsShownPerChannelPerSecond;
  if (limit === undefined) return false;
  const recent = (fake.shownTimes.get(channel) ?? []).filter((t) => at - t < 1_000);
  fake.shownTimes.set(channel, recent);
  if (recent.length >= limit) return true;
  recent.push(at);
  return false;
}

/** A 429 when a post to `channel` now would exceed the per-channel limit; else counts it. */
function overPostLimit(fake: FakeSlackCore, channel: string): Response | undefined {
  const limit = fake.postsPerChannelPerSecond;
  if (limit === undefined) return undefined;
  const now = Date.now();
  const recent = (fake.postTimes.get(channel) ?? []).filter((t) => now - t < 1_000);
  fake.postTimes.set(channel, recent);
  if (recent.length >= limit) {
    fake.postsRateLimited += 1;
    const seconds = Math.max(1, Math.ceil((1_000 - (now - (recent[0] ?? now))) / 1_000));
    return Response.json(
      { ok: false, error: "ratelimited" },
      { status: 429, headers: { "retry-after": String(seconds) } },
    );
  }
  recent.push(now);
  return undefined;
}

/** The message a permalink in a post's attachments points at (Slack's quote card). */
function quotedOf(fake: FakeSlackCore, attachments: unknown) {
  const list = jsonField(attachments);
  if (!Array.isArray(list)) return undefined;
  for (const a of list as Array<{ from_url?: unknown }>) {
    const match = /\/archives\/([A-Z0-9]+)\/p(\d{10})(\d{6})/.exec(String(a?.from_url ?? ""));
    if (!match) continue;
    const found = fake.message(match[1] as string, `${match[2]}.${match[3]}`);
    if (found) return found;
  }
  return undefined;
}

/** Registers `auth.test`, `bots.info` and the `chat.*` message methods. */
export function registerChatMethods(fake: FakeSlackCore): void {
  method(fake, "auth.test", "auth", (_f, _args, bot) =>
    ok({
      url: "https://herald-test.slack.com/",
      team: "herald test",
      user: bot.name,
      team_id: bot.teamId,
      user_id: bot.userId,
      bot_id: bot.botId,
      app_id: bot.appId,
      is_enterprise_install: false,
    }),
  );

  method(fake, "bots.info", "auth", (f, args) => {
    const found = f.bots.find((b) => b.botId === args.bot);
    if (!found) return fail("bot_not_found");
    return ok({
      bot: { id: found.botId, app_id: found.appId, user_id: found.userId, name: found.name },
    });
  });

  method(fake, "chat.postMessage", "send", (f, args, bot) => {
    const text = typeof args.text === "string" ? args.text : "";
    if (text.trim() === "" && args.blocks === undefined) return fail("no_text");
    const posted = postAsBot(f, "chat.postMessage", args, bot, text);
    if (posted instanceof Response) return posted;
    const stored = f.message(posted.channel, posted.ts);
    return ok({
      channel: posted.channel,
      ts: posted.ts,
      ...(stored
        ? { message: f.messageJson(stored, true) }
        : posted.hiddenMessage
          ? { message: posted.hiddenMessage }
          : {}),
    });
  });

  method(fake, "chat.update", "edit", (f, args, bot) => {
    const channel = String(args.channel ?? "");
    const ts = String(args.ts ?? "");
    if (!f.channels.has(channel)) return fail("channel_not_found");
    const stored = f.message(channel, ts);
    if (!stored) return fail("message_not_found");
    if (stored.user !== bot.userId) return fail("cant_update_message");
    const markdown = typeof args.markdown_text === "string" ? args.markdown_text : undefined;
    const text = markdown ?? (typeof args.text === "string" ? args.text : "");
    if (text.length > TEXT_LIMIT) return fail("msg_too_long");
    // An update on a stream's ts replaces its text and ends the stream.
    const stream = f.streams.get(`${channel}:${ts}`);
    if (stream) stream.open = false;
    const metadata = jsonField(args.metadata);
    if (metadata && typeof metadata === "object") {
      stored.metadata = metadata as NonNullable<typeof stored.metadata>;
    }
    f.state.edit(stored.visibleId, text, stored.metadata);
    // Slack answers the edited message too (slack-api-specs: `message` is required).
    const edited = f.message(channel, ts);
    return ok({ channel, ts, text, ...(edited ? { message: f.messageJson(edited, true) } : {}) });
  });

  method(fake, "chat.delete", "delete", (f, args, bot) => {
    const channel = String(args.channel ?? "");
    const ts = String(args.ts ?? "");
    if (!f.channels.has(channel)) return fail("channel_not_found");
    const stored = f.message(channel, ts);
    if (!stored) return fail("message_not_found");
    if (stored.user !== bot.userId) return fail("cant_delete_message");
    f.state.delete(stored.visibleId);
    return ok({ channel, ts });
  });
}
