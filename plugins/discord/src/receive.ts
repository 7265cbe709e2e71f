/**
 * Inbound on Discord: gateway dispatches (`MESSAGE_CREATE`, `MESSAGE_UPDATE`, `MESSAGE_DELETE`)
 * become herald messages and events. The receiver hands each dispatch over as a
 * {@link DiscordInbound} envelope — the dispatch as Discord sent it plus the channel as the
 * gateway described it (GUILD_CREATE / THREAD_CREATE), so a thread is known as one. The adapter
 * states platform facts (bot author, room shape, mentions, its own ids); core decides.
 *
 * - Targets: no `guild_id` → `direct`; a thread channel → `thread` (`id` = `parentId` = the
 *   parent channel, `threadId` = the thread); else `group`.
 * - Thread anchor: in a guild channel, the thread under a message has the message's id
 *   (Discord's "start thread from message"); in a thread, the thread itself; none in DMs.
 * - Ids: `<channel_id>:<message_id>` (the form receipts use), which is also the dedupe
 *   identity: a RESUME replay or a second dispatch of one message is the same message (C26).
 *   An edit is `…:edit:<edited_timestamp>`, a delete `…:deleted`.
 * - Own messages: the author id is the bot, our application, or one of our webhooks
 *   (`selfIds`); messages this process created are dropped too (preflight). Our own edits
 *   (live previews) are ignored, not `message_edited` events.
 * - Mentions: `<@bot id>` / `<@!bot id>` in `mentions` or content, or a reply to the bot.
 * - System messages (a pin, a join, "started a thread"…: a `type` other than Default, Reply or
 *   an app's command answer) are ignored, never a turn.
 *
 * Source: https://discord.com/developers/docs/events/gateway-events#message-create
 *
 * @module
 */
import {
  type ChannelMessage,
  type MessageActor,
  type MessageAttachment,
  type MessageEventClass,
  type MessageReceiveAdapter,
  type MessageTarget,
  type NormalizeResult,
  parseInbound,
  z,
} from "@herald/plugin-sdk/channel-message";
import { DISCORD_CHANNEL_ID } from "./account.ts";
import { actionOf, MESSAGE_COMPONENT } from "./actions.ts";
import type { DiscordIdentity, OutboundRegistry } from "./origin.ts";
import { REACTION_DISPATCHES, reactionOf } from "./reactions.ts";
import { messageRef } from "./send.ts";

/** Discord channel types herald tells apart (discord-api-types `ChannelType`). */
const THREAD_TYPES = new Set([10, 11, 12]);

const userSchema = z.looseObject({
  id: z.string().min(1),
  username: z.string().optional(),
  global_name: z.string().nullish(),
  bot: z.boolean().optional(),
});

/**
 * Message types that are someone's words (discord-api-types `MessageType`): Default, Reply, and
 * an app's answer to a slash command or context-menu command. The others are system messages
 * (a pin, a join, "started a thread", a boost…) authored in the name of whoever caused them,
 * mostly with empty content: never a turn.
 */
const CONTENT_TYPES = new Set([0, 19, 20, 23]);

const messageSchema = z.looseObject({
  id: z.string().min(1),
  type: z.number().int().default(0),
  channel_id: z.string().min(1),
  guild_id: z.string().optional(),
  author: userSchema,
  content: z.string().default(""),
  timestamp: z.string().optional(),
  edited_timestamp: z.string().nullish(),
  webhook_id: z.string().optional(),
  application_id: z.string().optional(),
  mentions: z.array(userSchema).default([]),
  message_reference: z
    .looseObject({ message_id: z.string().optional(), channel_id: z.string().optional() })
    .optional(),
  referenced_message: z.looseObject({ author: userSchema.optional() }).nullish(),
  attachments: z
    .array(
      z.looseObject({
        id: z.string(),
        filename: z.string(),
        url: z.string(),
        size: z.number().optional(),
        content_type: z.string().optional(),
      }),
    )
    .default([]),
});

/** A command option; a subcommand (group) carries `options` instead of a `value`. */
type CommandOption = { name: string; value?: unknown; options?: CommandOption[] | undefined };
const optionSchema: z.ZodType<CommandOption> = z.lazy(() =>
  z.looseObject({
    name: z.string(),
    value: z.unknown().optional(),
    options: z.array(optionSchema).optional(),
  }),
);

const interactionSchema = z.looseObject({
  id: z.string().min(1),
  type: z.number().int(),
  channel_id: z.string().min(1),
  guild_id: z.string().optional(),
  application_id: z.string().optional(),
  member: z.looseObject({ user: userSchema }).optional(),
  user: userSchema.optional(),
  message: z.looseObject({ id: z.string() }).optional(),
  data: z
    .looseObject({
      name: z.string().optional(),
      custom_id: z.string().optional(),
      options: z.array(optionSchema).optional(),
    })
    .optional(),
});

/**
 * The words of command options: `name:value` for a value, and a subcommand or subcommand group
 * (no value, options of its own) as its name followed by its options — `/deploy prod service:api`.
 */
function optionWords(options: readonly CommandOption[]): string[] {
  return options.flatMap((o) =>
    o.value === undefined && o.options
      ? [o.name, ...optionWords(o.options)]
      : [`${o.name}:${String(o.value ?? "")}`],
  );
}

/** The text of an interaction: `/name option…` for a command, the `custom_id` otherwise. */
function interactionText(i: z.output<typeof interactionSchema>): string {
  if (i.data?.name) return [`/${i.data.name}`, ...optionWords(i.data.options ?? [])].join(" ");
  return i.data?.custom_id ?? "";
}

const channelSchema = z.looseObject({
  id: z.string(),
  type: z.number().int(),
  parent_id: z.string().nullish(),
});

/** What the receiver hands the sink: one gateway dispatch, and its channel when known. */
export const discordInboundSchema = z.looseObject({
  /** The dispatch event name, e.g. `MESSAGE_CREATE`. */
  t: z.string(),
  /** Its sequence number in the gateway session. */
  s: z.number().int().nullish(),
  d: z.unknown(),
  channel: channelSchema.optional(),
});

/** One inbound gateway dispatch as the receiver hands it over. */
export type DiscordInbound = z.output<typeof discordInboundSchema>;

type DiscordMessage = z.output<typeof messageSchema>;

function targetOf(
  m: { channel_id: string; guild_id?: string | undefined },
  inbound: DiscordInbound,
): MessageTarget {
  if (!m.guild_id) return { kind: "direct", id: m.channel_id };
  const channel = inbound.channel;
  if (channel && THREAD_TYPES.has(channel.type) && channel.parent_id) {
    return {
      kind: "thread",
      id: channel.parent_id,
      parentId: channel.parent_id,
      threadId: m.channel_id,
      spaceId: m.guild_id,
    };
  }
  return { kind: "group", id: m.channel_id, spaceId: m.guild_id };
}

/** A Discord user as herald's actor (display name: the global name, else the username). */
function actorOf(u: z.output<typeof userSchema>, isBot: boolean): MessageActor {
  const name = u.global_name ?? u.username;
  return name ? { id: u.id, displayName: name, isBot } : { id: u.id, isBot };
}

function attachmentsOf(m: DiscordMessage): MessageAttachment[] {
  return m.attachments.map((a) => ({
    kind: a.content_type?.startsWith("image/") ? "image" : "file",
    url: a.url,
    name: a.filename,
    ...(a.content_type ? { mimeType: a.content_type } : {}),
    ...(a.size !== undefined ? { sizeBytes: a.size } : {}),
  }));
}

/** The receive adapter of one bot. */
export function createReceive(
  identity: DiscordIdentity,
  registry: OutboundRegistry,
): MessageReceiveAdapter<unknown> {
  const mentionsBot = (m: DiscordMessage): boolean => {
    const me = identity.userId;
    if (!me) return false;
    return (
      m.mentions.some((u) => u.id === me) ||
      m.content.includes(`<@${me}>`) ||
      m.content.includes(`<@!${me}>`) ||
      m.referenced_message?.author?.id === me
    );
  };

  const toMessage = (m: DiscordMessage, inbound: DiscordInbound): ChannelMessage => {
    const target = targetOf(m, inbound);
    const ref = messageRef(m.channel_id, m.id);
    const anchor =
      target.kind === "thread" ? m.channel_id : target.kind === "group" ? m.id : undefined;
    const attachments = attachmentsOf(m);
    const replyTo = m.message_reference?.message_id;
    return {
      id: ref,
      channel: DISCORD_CHANNEL_ID,
      direction: "inbound",
      target,
      platformMessageId: ref,
      sender: actorOf(m.author, m.author.bot === true || m.webhook_id !== undefined),
      body: { markdown: m.content, plain: m.content },
      ...(attachments.length > 0 ? { attachments } : {}),
      ...(anchor ? { threadAnchor: { threadId: anchor } } : {}),
      ...(replyTo
        ? {
            relation: {
              kind: "reply" as const,
              replyToId: messageRef(m.message_reference?.channel_id ?? m.channel_id, replyTo),
            },
          }
        : {}),
      mentions: { self: mentionsBot(m), users: m.mentions.map((u) => u.id) },
      ...(m.timestamp ? { timestamp: Date.parse(m.timestamp) } : {}),
      raw: inbound,
    } satisfies ChannelMessage;
  };

  return {
    normalize(raw, ctx): NormalizeResult {
      const inbound = parseInbound(discordInboundSchema, raw, DISCORD_CHANNEL_ID);
      if (REACTION_DISPATCHES.has(inbound.t)) {
        const session = (raw as { session?: unknown }).session;
        const reaction = reactionOf(
          { ...inbound, ...(typeof session === "string" ? { session } : {}) },
          (d) => targetOf(d, inbound),
          identity.ids(),
          ctx.receivedAt,
        );
        return "kind" in reaction && reaction.kind === "reaction" && ctx.accountId !== undefined
          ? { ...reaction, accountId: ctx.accountId }
          : reaction;
      }
      if (inbound.t === "MESSAGE_CREATE") {
        const m = parseInbound(messageSchema, inbound.d, DISCORD_CHANNEL_ID);
        if (!CONTENT_TYPES.has(m.type)) {
          return { kind: "ignore", reason: "system_message", detail: `type ${m.type}` };
        }
        return toMessage(m, inbound);
      }
      if (inbound.t === "MESSAGE_UPDATE") {
        // An embed unfurl arrives as an update without an author: not an edit by anyone. A `d`
        // that is no object at all is malformed (dead-lettered by the parse below).
        const d = inbound.d;
        if (d !== null && typeof d === "object" && !("author" in d && d.author)) {
          return { kind: "ignore", reason: "unfurl" };
        }
        const m = parseInbound(messageSchema, inbound.d, DISCORD_CHANNEL_ID);
        // Our own edits (every live-preview update) are echoes, not news (core does not
        // filter events by author).
        const self = identity.ids();
        if (self.includes(m.author.id) || (m.webhook_id && self.includes(m.webhook_id))) {
          return { kind: "ignore", reason: "own_edit" };
        }
        const message = toMessage(m, inbound);
        return {
          kind: "event",
          type: "message_edited",
          id: `${message.platformMessageId}:edit:${m.edited_timestamp ?? inbound.s ?? ""}`,
          channel: DISCORD_CHANNEL_ID,
          target: message.target,
          actor: message.sender as NonNullable<ChannelMessage["sender"]>,
          platformMessageId: message.platformMessageId as string,
          message,
          raw: inbound,
        };
      }
      if (inbound.t === "INTERACTION_CREATE") {
        const i = parseInbound(interactionSchema, inbound.d, DISCORD_CHANNEL_ID);
        const user = i.member?.user ?? i.user;
        if (!user) return { kind: "ignore", reason: "interaction_without_user" };
        if (i.type === MESSAGE_COMPONENT) {
          const action = actionOf(i, user, targetOf(i, inbound), inbound, ctx.receivedAt);
          return ctx.accountId !== undefined ? { ...action, accountId: ctx.accountId } : action;
        }
        const text = interactionText(i);
        return {
          // An interaction is not a message: no platform message id to reply to.
          id: `interaction:${i.id}`,
          channel: DISCORD_CHANNEL_ID,
          direction: "inbound",
          target: targetOf(i, inbound),
          sender: actorOf(user, user.bot === true),
          body: { markdown: text, plain: text },
          // A command is addressed to the bot.
          mentions: { self: true },
          raw: inbound,
        } satisfies ChannelMessage;
      }
      if (inbound.t === "MESSAGE_DELETE") {
        const d = parseInbound(
          z.looseObject({
            id: z.string(),
            channel_id: z.string(),
            guild_id: z.string().optional(),
          }),
          inbound.d,
          DISCORD_CHANNEL_ID,
        );
        const ref = messageRef(d.channel_id, d.id);
        return {
          kind: "event",
          type: "message_deleted",
          id: `${ref}:deleted`,
          channel: DISCORD_CHANNEL_ID,
          target: targetOf(d, inbound),
          platformMessageId: ref,
          raw: inbound,
        };
      }
      return { kind: "ignore", reason: "dispatch_type", detail: inbound.t };
    },

    classify(message, raw): MessageEventClass {
      const inbound = raw as DiscordInbound;
      const d = inbound.d as DiscordMessage;
      if (inbound.t === "INTERACTION_CREATE") {
        return {
          eventType: inbound.t,
          eventTypes: [inbound.t],
          isBotAuthor: false,
          isRoomish: message.target.kind !== "direct",
          mentionsSelf: true,
          authorIds: [message.sender?.id ?? ""],
        };
      }
      return {
        eventType: inbound.t,
        eventTypes: [inbound.t],
        isBotAuthor: message.sender?.isBot === true,
        isRoomish: message.target.kind !== "direct",
        mentionsSelf: message.mentions?.self === true,
        authorIds: [
          d.author.id,
          ...(d.webhook_id ? [d.webhook_id] : []),
          ...(d.application_id ? [d.application_id] : []),
        ],
      };
    },

    selfIds: () => identity.ids(),

    preflight(message) {
      const inbound = message.raw as DiscordInbound;
      if (inbound.t === "INTERACTION_CREATE") return { action: "accept" };
      const d = inbound.d as DiscordMessage;
      return registry.has(d.channel_id, d.id)
        ? { action: "drop", reason: "own_message" }
        : { action: "accept" };
    },
  };
}
