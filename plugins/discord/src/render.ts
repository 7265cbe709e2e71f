/**
 * Rendering for Discord: markdown → Discord markdown (the SDK's `renderDiscord`: escaping, and
 * mentions neutralized unless allowed), chunked at 2000 characters on the serialized output with
 * code fences closed and re-opened with their language (CASES C17); embeds from
 * `channelOptions.discord.embeds` split and packed within Discord's limits (see `embeds.ts`),
 * the first group on the last text message and the rest as messages of their own; images with a
 * URL as embed images, other files as uploads in messages of their own; and `allowed_mentions` on every payload matching what the text may
 * ping, so model text never pings `@everyone`, `@here` or a role unless configured.
 *
 * Source: https://discord.com/developers/docs/resources/message#create-message,
 * https://discord.com/developers/docs/resources/message#allowed-mentions-object
 *
 * @module
 */
import {
  type AllowedMentions,
  bodyTree,
  type ChannelMessage,
  channelOptionsOf,
  chunkMarkdown,
  discordMentions,
  extractMentions,
  type MessageRenderAdapter,
  type RenderedMessageUnit,
  renderDiscord,
  withChannelOptions,
  z,
} from "@herald/plugin-sdk/channel-message";
import { componentRows, type DiscordComponentRow } from "./actions.ts";
import type { DiscordConfig } from "./config.ts";
import { type DiscordEmbed, discordEmbedSchema, packEmbeds } from "./embeds.ts";
import { DiscordRenderError } from "./errors.ts";

/** Discord's `allowed_mentions` object (wire names). */
export type DiscordAllowedMentions = {
  parse: Array<"users" | "roles" | "everyone">;
  roles?: string[];
  replied_user: boolean;
};

/** A file to attach: fetched from `url` through the SDK's guarded fetch, or read from `path`. */
export type DiscordFileSource = { url: string; name: string } | { path: string; name: string };

/** The payload of one Discord unit (one create-message call). Plain JSON: stored on the intent. */
export type DiscordUnitPayload = {
  content?: string;
  embeds?: DiscordEmbed[];
  files?: DiscordFileSource[];
  /** Buttons ([H23], `actions.ts`): action rows under this message. */
  components?: DiscordComponentRow[];
  allowedMentions: DiscordAllowedMentions;
};

/** Discord-only send options of a message: `channelOptions.discord` ({@link withDiscordOptions}). */
export type DiscordSendOptions = {
  /** Embeds, split and packed within Discord's limits. */
  embeds?: DiscordEmbed[];
};

const DISCORD_OPTIONS_KEY = "discord";
const sendOptionsSchema = z.strictObject({ embeds: z.array(discordEmbedSchema).optional() });

/**
 * A copy of `message` carrying Discord send options (the SDK's `withChannelOptions`).
 * @example withDiscordOptions(message, { embeds: [{ title: "Build", description: "green" }] })
 */
export function withDiscordOptions(
  message: ChannelMessage,
  options: DiscordSendOptions,
): ChannelMessage {
  return withChannelOptions(message, DISCORD_OPTIONS_KEY, options);
}

/**
 * The Discord send options of a message (`{}` when none).
 * @throws ChannelOptionsError naming the field path when they are malformed.
 */
export function discordOptionsOf(message: ChannelMessage): DiscordSendOptions {
  return (channelOptionsOf(message, DISCORD_OPTIONS_KEY, sendOptionsSchema) ??
    {}) as DiscordSendOptions;
}

/** The mentions config as the SDK's serializer and Discord's `allowed_mentions` take it. */
export function mentionPolicy(config: Pick<DiscordConfig, "mentions">): {
  allow: AllowedMentions;
  wire: DiscordAllowedMentions;
} {
  const m = config.mentions;
  const parse: DiscordAllowedMentions["parse"] = [];
  if (m.users) parse.push("users");
  if (m.roles === true) parse.push("roles");
  if (m.everyone) parse.push("everyone");
  return {
    allow: { users: m.users, channels: true, roles: m.roles, everyone: m.everyone },
    wire: {
      parse,
      ...(Array.isArray(m.roles) && m.roles.length > 0 ? { roles: [...m.roles] } : {}),
      replied_user: m.repliedUser,
    },
  };
}

/** Limits and policy the renderer works to. */
export type RenderConfig = Pick<DiscordConfig, "maxTextLength" | "mentions">;

/** The body's text chunks, in Discord markdown, each at most `maxTextLength`. */
export function renderChunks(message: ChannelMessage, config: RenderConfig): string[] {
  const { allow } = mentionPolicy(config);
  const tree = extractMentions(bodyTree(message.body), discordMentions);
  return chunkMarkdown(tree, {
    maxLength: config.maxTextLength,
    serialize: (t) => renderDiscord(t, { allowMentions: allow }),
  })
    .map((c) => c.text)
    .filter((t) => t.trim() !== "");
}

/** An image with a URL: Discord shows it from the URL (an embed image), nothing is uploaded. */
const isRemoteImage = (a: NonNullable<ChannelMessage["attachments"]>[number]) =>
  a.kind === "image" && a.url !== undefined && a.path === undefined;

function filesOf(message: ChannelMessage): DiscordFileSource[] {
  return (message.attachments ?? [])
    .filter((a) => a.kind !== "link" && !isRemoteImage(a))
    .map((a, i) => {
      const name = a.name ?? `attachment-${i + 1}`;
      if (a.url) return { url: a.url, name };
      if (a.path) return { path: a.path, name };
      throw new DiscordRenderError(
        `attachments[${i}]: a ${a.kind} attachment needs a url or a path (got none)`,
      );
    });
}

/**
 * Renders a message into payloads, in order: text chunks (the first embed group on the last
 * one), the remaining embed groups, then each file to upload (with link attachments as text).
 * An image with a URL becomes an embed image that Discord loads from the URL; other remote files
 * are fetched by herald (guarded fetch) and uploaded.
 *
 * @throws DiscordRenderError when there is nothing to send or an attachment has no source.
 * @throws ChannelOptionsError when `channelOptions.discord` is malformed.
 */
export function renderPayloads(
  message: ChannelMessage,
  config: RenderConfig,
): DiscordUnitPayload[] {
  const { wire } = mentionPolicy(config);
  const links = (message.attachments ?? []).filter((a) => a.kind === "link" && a.url);
  const chunks = renderChunks(message, config);
  if (links.length > 0) chunks.push(links.map((l) => `<${l.url}>`).join("\n"));
  const images = (message.attachments ?? [])
    .filter(isRemoteImage)
    .map((a) => ({ image: { url: a.url as string } }));
  const groups = packEmbeds([...(discordOptionsOf(message).embeds ?? []), ...images]);
  const out: DiscordUnitPayload[] = chunks.map((content) => ({
    content,
    allowedMentions: wire,
  }));
  const last = out.at(-1);
  const first = groups[0];
  if (last && first) last.embeds = first;
  for (const group of last ? groups.slice(1) : groups)
    out.push({ embeds: group, allowedMentions: wire });
  if (message.actions?.length) {
    // The buttons go under the last text or embed unit (a text of their labels when none).
    const rows = componentRows(message.actions);
    const host = out.at(-1);
    if (host) host.components = rows;
    else {
      const labels = message.actions.map((a) => a.label).join(" / ");
      out.push({ content: labels, components: rows, allowedMentions: wire });
    }
  }
  for (const file of filesOf(message)) out.push({ files: [file], allowedMentions: wire });
  if (out.length === 0) {
    throw new DiscordRenderError(`message ${message.id} has no text, embeds or attachments`);
  }
  return out;
}

/**
 * The render adapter: payloads become units (`text`, `card` for embed-only messages, `media`
 * for files), every one required, and a failure retries only the missing units.
 */
export function createRender(config: RenderConfig): MessageRenderAdapter {
  return {
    render(message, ctx) {
      const units: RenderedMessageUnit[] = renderPayloads(message, config).map(
        (payload, index) => ({
          index,
          kind: payload.files ? "media" : payload.content !== undefined ? "text" : "card",
          payload,
          required: true,
        }),
      );
      return { idempotencyKey: ctx.idempotencyKey, atomicity: "all_or_retry_remaining", units };
    },
  };
}
