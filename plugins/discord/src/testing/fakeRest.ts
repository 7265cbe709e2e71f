/**
 * The fake's REST routes (`/api/v10/...`), each tagged with a fault op: create message (`send`),
 * edit (`edit`), delete (`delete`), fetch (`read`), typing (`typing`), start thread (`thread`),
 * plus `GET /gateway/bot` and `GET /users/@me`. Every message route answers Discord's
 * `X-RateLimit-*` headers for its channel's bucket and a 429 once the bucket is spent.
 *
 * @module
 */
import type { Context, FakePlatformEnv } from "@herald/plugin-sdk/testing";
import { validateComponents } from "./fakeActions.ts";
import type { FakeBotAccount, FakeDiscordCore } from "./fakeTypes.ts";
import { validateCreate, validateEdit } from "./fakeValidate.ts";
import { errorResponse, FakeDiscordError, readBody, USER_DEFAULTS } from "./fakeWire.ts";

const V = "/api/v10";

type Bucket = { times: number[] };

/** Channels that hold no messages of their own: forum and media channels (posts only), categories. */
const TAKES_NO_MESSAGES = new Set(["forum", "media", "category"]);

/** Discord's channel type numbers (https://discord.com/developers/docs/resources/channel#channel-object-channel-types). */
const CHANNEL_TYPE = { text: 0, dm: 1, category: 4, thread: 11, forum: 15, media: 16 } as const;

/** Per-channel buckets: at most `limit` message calls per `windowMs`. */
class Buckets {
  readonly #buckets = new Map<string, Bucket>();
  readonly fake: FakeDiscordCore;
  constructor(fake: FakeDiscordCore) {
    this.fake = fake;
  }

  /** Takes a slot; @returns the headers to answer, or throws the 429. */
  take(channelId: string): Record<string, string> {
    const { limit, windowMs } = this.fake.buckets;
    const now = this.fake.clock();
    const bucket = this.#buckets.get(channelId) ?? { times: [] };
    this.#buckets.set(channelId, bucket);
    bucket.times = bucket.times.filter((t) => now - t < windowMs);
    const resetAfterMs =
      bucket.times.length > 0 ? windowMs - (now - (bucket.times[0] as number)) : windowMs;
    const base = {
      "x-ratelimit-limit": String(limit),
      "x-ratelimit-bucket": "fakebucketmessages",
      "x-ratelimit-reset-after": (resetAfterMs / 1_000).toFixed(3),
      "x-ratelimit-reset": ((now + resetAfterMs) / 1_000).toFixed(3),
    };
    if (bucket.times.length >= limit) {
      throw new FakeDiscordError(429, 0, "You are being rate limited.", undefined, {
        ...base,
        "x-ratelimit-remaining": "0",
        "x-ratelimit-scope": "user",
        "retry-after": String(Math.ceil(resetAfterMs / 1_000)),
      });
    }
    bucket.times.push(now);
    return { ...base, "x-ratelimit-remaining": String(limit - bucket.times.length) };
  }
}

function rateLimited(error: FakeDiscordError): Response {
  const resetAfter = Number(error.headers["x-ratelimit-reset-after"] ?? "1");
  return new Response(
    JSON.stringify({ message: error.message, retry_after: resetAfter, global: false }),
    { status: 429, headers: { "content-type": "application/json", ...error.headers } },
  );
}

/** Registers the REST routes on the fake's server. */
export function registerRest(fake: FakeDiscordCore): void {
  const server = fake.server;
  const buckets = new Buckets(fake);

  /** Authenticates, runs `handler`, renders its Discord errors. */
  const wrap =
    (handler: (c: Context<FakePlatformEnv>, bot: FakeBotAccount) => Promise<Response> | Response) =>
    async (c: Context<FakePlatformEnv>): Promise<Response> => {
      const bot = fake.botOfToken(c.req.header("authorization"));
      if (!bot) return errorResponse(new FakeDiscordError(401, 0, "401: Unauthorized"));
      try {
        return await handler(c, bot);
      } catch (error) {
        if (!(error instanceof FakeDiscordError)) throw error;
        return error.status === 429 ? rateLimited(error) : errorResponse(error);
      }
    };

  const channelOf = (c: Context<FakePlatformEnv>) => {
    const channel = fake.channels.get(c.req.param("channel") ?? "");
    if (!channel) throw new FakeDiscordError(404, 10003, "Unknown Channel");
    return channel;
  };
  const json = (body: unknown, headers: Record<string, string> = {}, status = 200) =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json", ...headers },
    });

  server.app.get(`${V}/gateway/bot`, (c) =>
    wrap(() =>
      json({
        url: fake.gatewayUrl,
        shards: 1,
        session_start_limit: {
          total: 1000,
          remaining: 999,
          reset_after: 14_400_000,
          max_concurrency: 1,
        },
      }),
    )(c),
  );
  server.app.get(`${V}/gateway`, (c) => c.json({ url: fake.gatewayUrl }));
  server.route(
    "GET",
    `${V}/users/@me`,
    "read",
    wrap((_c, bot) =>
      json({
        id: bot.id,
        username: bot.username,
        discriminator: "0",
        bot: true,
        avatar: null,
        ...USER_DEFAULTS,
        // `GET /users/@me` answers the PII fields too (`UserPIIResponse`).
        mfa_enabled: false,
        locale: "en-US",
      }),
    ),
  );

  server.route(
    "POST",
    `${V}/channels/:channel/messages`,
    "send",
    wrap(async (c, bot) => {
      const channel = channelOf(c);
      const headers = buckets.take(channel.id);
      const { json: body, files } = await readBody(c);
      if (TAKES_NO_MESSAGES.has(channel.type)) {
        // What Discord answers, checked against the live API: `POST /channels/{forum}/messages`
        // → 400 {"code": 50008, "message": "Cannot send messages in a non-text channel"}
        // (appwrite/grafana-oncall#26, 2026-08-14; PLATFORMS.md §9, CASES C43). Discord's docs say
        // only "Messages cannot be sent directly in forum channels" (topics/threads, "Forums") and
        // list 40058 "Cannot send a message in a forum channel", which this route does not answer.
        throw new FakeDiscordError(400, 50008, "Cannot send messages in a non-text channel");
      }
      if (channel.denied.has(bot.id)) throw new FakeDiscordError(403, 50013, "Missing Permissions");
      const input = validateCreate(fake, channel.id, body, files.length);
      const components = validateComponents(body.components);
      const { message, duplicate } = fake.post({
        channelId: channel.id,
        author: { id: bot.id, username: bot.username, bot: true },
        text: input.content,
        embeds: input.embeds,
        files,
        ...(input.nonce !== undefined && input.enforceNonce ? { nonce: input.nonce } : {}),
        ...(input.referenceId !== undefined ? { referenceId: input.referenceId } : {}),
      });
      if (components && !duplicate) message.json.components = components;
      if (duplicate && fake.state.get(message.json.id as string)?.deleted) {
        // The original was deleted: Discord answers 10008 and creates nothing (PLATFORMS §8).
        throw new FakeDiscordError(404, 10008, "Unknown Message");
      }
      return json(message.json, headers);
    }),
  );

  server.route(
    "PATCH",
    `${V}/channels/:channel/messages/:id`,
    "edit",
    wrap(async (c, bot) => {
      const channel = channelOf(c);
      const headers = buckets.take(channel.id);
      const stored = fake.stored.get(c.req.param("id") ?? "");
      if (
        !stored ||
        stored.channelId !== channel.id ||
        fake.state.get(c.req.param("id") ?? "")?.deleted
      ) {
        throw new FakeDiscordError(404, 10008, "Unknown Message");
      }
      if (stored.authorId !== bot.id) {
        throw new FakeDiscordError(403, 50005, "Cannot edit a message authored by another user");
      }
      const { json: body } = await readBody(c);
      const input = validateEdit(body, stored);
      const edited = fake.edit(stored.json.id as string, input.content, input.embeds);
      return json(edited?.json, headers);
    }),
  );

  server.route(
    "DELETE",
    `${V}/channels/:channel/messages/:id`,
    "delete",
    wrap((c, bot) => {
      const channel = channelOf(c);
      const headers = buckets.take(channel.id);
      const id = c.req.param("id") ?? "";
      const stored = fake.stored.get(id);
      if (
        !stored ||
        stored.channelId !== channel.id ||
        !fake.state.get(id) ||
        fake.state.get(id)?.deleted
      ) {
        throw new FakeDiscordError(404, 10008, "Unknown Message");
      }
      if (stored.authorId !== bot.id && channel.denied.has(bot.id)) {
        throw new FakeDiscordError(403, 50013, "Missing Permissions");
      }
      fake.delete(id);
      return new Response(null, { status: 204, headers });
    }),
  );

  server.route(
    "GET",
    `${V}/channels/:channel/messages/:id`,
    "read",
    wrap((c) => {
      const channel = channelOf(c);
      const id = c.req.param("id") ?? "";
      const stored = fake.stored.get(id);
      if (!stored || stored.channelId !== channel.id || fake.state.get(id)?.deleted) {
        throw new FakeDiscordError(404, 10008, "Unknown Message");
      }
      // Discord does not return the nonce on REST reads.
      const { nonce: _nonce, ...rest } = stored.json;
      return json(rest);
    }),
  );

  server.route(
    "GET",
    `${V}/channels/:channel`,
    "read",
    wrap((c) => {
      const channel = channelOf(c);
      return json(channelJson(fake, channel.id));
    }),
  );

  server.route(
    "POST",
    `${V}/channels/:channel/typing`,
    "typing",
    wrap((c, bot) => {
      const channel = channelOf(c);
      const parent = channel.type === "thread" ? channel.parentId : undefined;
      fake.state.typing(parent ?? channel.id, bot.id, true, parent ? channel.id : undefined);
      return new Response(null, { status: 204 });
    }),
  );

  server.route(
    "POST",
    `${V}/channels/:channel/messages/:id/threads`,
    "thread",
    wrap(async (c) => {
      const channel = channelOf(c);
      const id = c.req.param("id") ?? "";
      const stored = fake.stored.get(id);
      if (!stored || stored.channelId !== channel.id) {
        throw new FakeDiscordError(404, 10008, "Unknown Message");
      }
      if (fake.channels.has(id)) {
        throw new FakeDiscordError(
          400,
          160004,
          "A thread has already been created for this message",
        );
      }
      const { json: body } = await readBody(c);
      const thread = fake.startThread(id, typeof body.name === "string" ? body.name : "thread");
      return json(channelJson(fake, thread.id), {}, 201);
    }),
  );
}

/** A channel object as Discord answers it (the fields discord.js reads). */
export function channelJson(fake: FakeDiscordCore, id: string): Record<string, unknown> {
  const channel = fake.channels.get(id);
  if (!channel) return {};
  const type = CHANNEL_TYPE[channel.type];
  return {
    id: channel.id,
    type,
    name: channel.name,
    // Required by discord-api-spec on every channel response (`GuildChannelResponse`,
    // `ThreadResponse`, `PrivateChannelResponse`); `position` on guild channels that are not threads.
    flags: 0,
    ...(channel.guildId && channel.type !== "thread" ? { position: 0 } : {}),
    ...(channel.guildId ? { guild_id: channel.guildId } : {}),
    ...(channel.parentId ? { parent_id: channel.parentId } : {}),
    ...(channel.type === "thread"
      ? {
          thread_metadata: {
            archived: false,
            auto_archive_duration: 1440,
            locked: false,
            archive_timestamp: new Date().toISOString(),
          },
          owner_id: "0",
          message_count: 0,
          member_count: 1,
          // Required by discord-api-spec's `ThreadResponse`.
          total_message_sent: 0,
        }
      : {}),
    ...(channel.type === "dm" ? { recipients: [] } : {}),
  };
}
