/**
 * Sending, editing and deleting on Discord. One unit is one create-message call, one message.
 * herald names a message `<channel_id>:<message_id>` (`composeRef`): edits and deletes need the
 * channel, and receipts, the outbound registry and inbound messages use the same form.
 *
 * Exactly once (PLATFORMS.md §2, §8): every create carries `nonce` = `platformKey(unit key)`
 * (25 base62 characters, the same on every retry and after a restart) with `enforce_nonce: true`,
 * so a replay within Discord's window returns the original message instead of a second one. A
 * replay (attempt 2 or later) whose original was deleted meanwhile answers 10008 Unknown Message
 * and creates nothing: that unit **was** sent (the part is recorded without a message id). Past the window core does
 * not trust the key (`capabilities.delivery.idempotencyWindowMs`) and holds the intent.
 *
 * Replies carry `message_reference` on the first unit only, with `fail_if_not_exists: false`, so
 * a deleted target does not fail the answer (CASES C28); should Discord still reject the
 * reference (50035 on `message_reference`), the unit is sent once more without it — never for a
 * 50013, which stays a permission failure. Threads are channels on Discord: a target with a
 * `threadId` posts into that channel; when it does not exist yet (10003) and the id is a message
 * of the parent channel (a thread anchor), a thread is started from that message first. A forum
 * or media channel itself takes posts, not messages — Discord answers 400 50008 "Cannot send
 * messages in a non-text channel" (not the documented 40058; PLATFORMS.md §9): the channel's type
 * is read, and for a forum or media channel creating a post is not implemented (Discord's nonce
 * does not cover it) and throws `NotImplementedError`; any other non-text channel (a category)
 * keeps Discord's 50008, an `invalid_payload`.
 *
 * Source: https://discord.com/developers/docs/resources/message#create-message,
 * https://discord.com/developers/docs/resources/channel#start-thread-from-message
 *
 * @module
 */

import { readFile } from "node:fs/promises";
import type { RawFile } from "@discordjs/rest";
import {
  composeRef,
  fetchRemoteMedia,
  type MessageReceiptPart,
  type MessageSendAdapter,
  type MessageSendContext,
  type MessageTarget,
  NotImplementedError,
  parseRef,
  platformKey,
  quotedReplyId,
  type RenderedMessageUnit,
} from "@herald/plugin-sdk/channel-message";
import type { DiscordRest } from "./client.ts";
import type { DiscordConfig } from "./config.ts";
import { classifyError, DISCORD_CODES, DiscordApiError, DiscordRenderError } from "./errors.ts";
import type { OutboundRegistry } from "./origin.ts";
import type { DiscordFileSource, DiscordUnitPayload } from "./render.ts";

/** Channel types that take posts (threads) only: `GUILD_FORUM` (15), `GUILD_MEDIA` (16). */
const GUILD_MEDIA = 16;
const POSTS_ONLY_TYPES = new Set<number>([15, GUILD_MEDIA]);

/**
 * The answers to a message sent where messages cannot go: 50008 is what Discord answers for a
 * forum channel (checked against the live API, PLATFORMS.md §9); 40058 is the documented forum
 * code, handled the same should Discord ever answer it.
 */
const NO_MESSAGES_HERE = new Set<number | undefined>([
  DISCORD_CODES.cannotSendInNonTextChannel,
  DISCORD_CODES.cannotSendInForumChannel,
]);

/** Discord's limit on a `nonce`, in characters. */
export const NONCE_MAX_LENGTH = 25;

/** The nonce of a unit: its idempotency key shortened to 25 base62 characters (stable). */
export function nonceOf(unitKey: string): string {
  return platformKey(unitKey, { maxLength: NONCE_MAX_LENGTH });
}

/** The channel a target's messages go to: the thread when there is one. */
export function channelOf(target: MessageTarget): string {
  return target.threadId ?? target.nativeChannelId ?? target.id;
}

/** herald's id of a Discord message: `<channel_id>:<message_id>`. */
export function messageRef(channel: string, messageId: string): string {
  return composeRef(channel, messageId);
}

const SNOWFLAKE = /^\d{1,20}$/;

/**
 * Splits `<channel_id>:<message_id>` (a bare id belongs to `fallbackChannel`).
 * @throws MalformedRefError when the ref is malformed.
 * @throws DiscordRenderError when either half is not a snowflake.
 */
export function parseMessageRef(
  ref: string,
  fallbackChannel: string,
): { channel: string; id: string } {
  const parsed = parseRef(ref, {
    fallbackContainer: fallbackChannel,
    label: "Discord message ref",
  });
  if (!SNOWFLAKE.test(parsed.container) || !SNOWFLAKE.test(parsed.id)) {
    throw new DiscordRenderError(`not a Discord message ref: ${ref}`);
  }
  return { channel: parsed.container, id: parsed.id };
}

/** A created message as Discord answers (the fields herald reads). */
type ApiMessage = { id: string; channel_id: string };

/** What the send adapter needs. */
export type SendDeps = {
  rest: DiscordRest;
  registry: OutboundRegistry;
  config: Pick<DiscordConfig, "media">;
  /** The bot token, redacted from classified failure messages. */
  token: string;
};

function referenceOf(ctx: MessageSendContext, unit: RenderedMessageUnit, channel: string) {
  const replyToId = quotedReplyId(ctx, unit);
  if (!replyToId) return undefined;
  const ref = parseMessageRef(replyToId, channel);
  return { message_id: ref.id, channel_id: ref.channel, fail_if_not_exists: false };
}

/** A 50035 that names `message_reference` (Discord's REPLIES_UNKNOWN_MESSAGE and kin). */
function rejectsReference(error: unknown): boolean {
  return (
    error instanceof DiscordApiError &&
    error.discordCode === DISCORD_CODES.invalidFormBody &&
    error.fieldErrors.some((f) => /message_reference|REPLIES_/i.test(f))
  );
}

async function rawFileOf(
  source: DiscordFileSource,
  deps: SendDeps,
  signal: AbortSignal,
): Promise<RawFile> {
  if ("path" in source) return { name: source.name, data: await readFile(source.path) };
  const media = await fetchRemoteMedia(source.url, {
    maxBytes: deps.config.media.maxBytes,
    allowPrivateNetworks: deps.config.media.allowPrivateNetworks,
    allowedHosts: deps.config.media.allowedHosts,
    signal,
  });
  return {
    name: source.name,
    data: Buffer.from(media.bytes),
    ...(media.contentType ? { contentType: media.contentType } : {}),
  };
}

/** The JSON body of a create or edit (wire names). */
function bodyOf(payload: DiscordUnitPayload, files: RawFile[]) {
  return {
    ...(payload.content !== undefined ? { content: payload.content } : {}),
    ...(payload.embeds ? { embeds: payload.embeds } : {}),
    ...(payload.components ? { components: payload.components } : {}),
    allowed_mentions: payload.allowedMentions,
    ...(files.length > 0 ? { attachments: files.map((f, id) => ({ id, filename: f.name })) } : {}),
  };
}

/**
 * The send adapter. `send` creates a message with a nonce (see the module docs); `edit` replaces
 * its content and embeds (`PATCH`); `delete` deletes it, and a message already gone is success.
 */
export function createSend(deps: SendDeps): MessageSendAdapter {
  const { rest, registry, token } = deps;
  const feedback = (ctx: MessageSendContext) =>
    ctx.reportRateLimit ? { onRateLimit: ctx.reportRateLimit } : {};

  async function create(
    ctx: MessageSendContext,
    channel: string,
    body: Record<string, unknown>,
    files: RawFile[],
  ): Promise<ApiMessage> {
    return rest.call<ApiMessage>({
      method: "POST",
      route: `/channels/${channel}/messages`,
      body,
      ...(files.length > 0 ? { files } : {}),
      signal: ctx.signal,
      ...feedback(ctx),
    });
  }

  /** Starts the thread `threadId` from the parent's message of that id (a thread anchor). */
  async function startThread(ctx: MessageSendContext, parent: string, threadId: string) {
    try {
      await rest.call({
        method: "POST",
        route: `/channels/${parent}/messages/${threadId}/threads`,
        body: { name: "reply", auto_archive_duration: 1440 },
        signal: ctx.signal,
        ...feedback(ctx),
      });
    } catch (error) {
      // Someone else (another process, a person) started it meanwhile: post into it.
      if (!(error instanceof DiscordApiError && error.status === 400)) throw error;
    }
  }

  /**
   * Why a channel refused a message (50008, or 40058): a forum or media channel takes posts only
   * — creating a post has no nonce, so it is not built (`NotImplementedError`, never resent) —
   * and any other channel is not a text channel (Discord's own error, `invalid_payload`). The
   * channel's type is read once to tell them apart; if that read fails, Discord's error stands.
   */
  async function whyNoMessages(
    ctx: MessageSendContext,
    channel: string,
    error: DiscordApiError,
  ): Promise<Error> {
    const info = await rest
      .call<{ type?: unknown }>({
        method: "GET",
        route: `/channels/${channel}`,
        signal: ctx.signal,
      })
      .catch(() => undefined);
    if (typeof info?.type === "number" && POSTS_ONLY_TYPES.has(info.type)) {
      return new NotImplementedError(
        `posting into a Discord ${info.type === GUILD_MEDIA ? "media" : "forum"} channel (creating a forum post; Discord answered ${error.platformCode})`,
        "send to one of its posts (a thread target) instead",
      );
    }
    return error;
  }

  return {
    async send(ctx, unit) {
      const target = ctx.message.target;
      const channel = channelOf(target);
      const payload = unit.payload as DiscordUnitPayload;
      const files = await Promise.all(
        (payload.files ?? []).map((f) => rawFileOf(f, deps, ctx.signal)),
      );
      const nonce = nonceOf(ctx.unitIdempotencyKey);
      const reference = referenceOf(ctx, unit, channel);
      const body = {
        ...bodyOf(payload, files),
        nonce,
        enforce_nonce: true,
        ...(reference ? { message_reference: reference } : {}),
      };
      let sent: ApiMessage;
      try {
        sent = await create(ctx, channel, body, files);
      } catch (error) {
        if (
          error instanceof DiscordApiError &&
          error.discordCode === DISCORD_CODES.unknownMessage &&
          ctx.attempt > 1
        ) {
          // A replay of this nonce whose original was deleted meanwhile: it was sent (PLATFORMS §8).
          ctx.log.info(
            { channel, nonce },
            "discord: nonce replay of a deleted message counts as sent",
          );
          return { platformMessageId: "", kind: unit.kind, index: unit.index };
        }
        if (reference && rejectsReference(error)) {
          const { message_reference: _dropped, ...plain } = body;
          sent = await create(ctx, channel, plain, files);
        } else if (
          error instanceof DiscordApiError &&
          error.discordCode === DISCORD_CODES.unknownChannel &&
          target.threadId !== undefined &&
          SNOWFLAKE.test(target.threadId)
        ) {
          await startThread(ctx, target.parentId ?? target.id, target.threadId);
          sent = await create(ctx, channel, body, files);
        } else if (error instanceof DiscordApiError && NO_MESSAGES_HERE.has(error.discordCode)) {
          throw await whyNoMessages(ctx, channel, error);
        } else {
          throw error;
        }
      }
      registry.remember(sent.channel_id, sent.id);
      return {
        platformMessageId: messageRef(sent.channel_id, sent.id),
        kind: unit.kind,
        index: unit.index,
        ...(target.threadId !== undefined ? { threadId: target.threadId } : {}),
        ...(reference ? { replyToId: messageRef(reference.channel_id, reference.message_id) } : {}),
      } satisfies MessageReceiptPart;
    },

    async edit(ctx, target, unit) {
      const { channel, id } = parseMessageRef(
        target.platformMessageId,
        channelOf(ctx.message.target),
      );
      const payload = unit.payload as DiscordUnitPayload;
      if (payload.files) {
        throw new DiscordRenderError("an attachment cannot be edited in: send it as a new message");
      }
      await rest.call({
        method: "PATCH",
        route: `/channels/${channel}/messages/${id}`,
        body: {
          content: payload.content ?? "",
          embeds: payload.embeds ?? [],
          allowed_mentions: payload.allowedMentions,
        },
        signal: ctx.signal,
        ...feedback(ctx),
      });
      return { ...target, kind: unit.kind, index: unit.index };
    },

    async delete(ctx, target) {
      if (target.platformMessageId === "") return; // sent, id unknown (deleted since)
      const { channel, id } = parseMessageRef(
        target.platformMessageId,
        channelOf(ctx.message.target),
      );
      try {
        await rest.call({
          method: "DELETE",
          route: `/channels/${channel}/messages/${id}`,
          signal: ctx.signal,
          ...feedback(ctx),
        });
      } catch (error) {
        // Already gone is what was asked.
        if (
          !(error instanceof DiscordApiError && error.discordCode === DISCORD_CODES.unknownMessage)
        ) {
          throw error;
        }
      }
    },

    classifyError: (error) => classifyError(error, token),
  };
}
