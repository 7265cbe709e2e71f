/**
 * `defineChannelPlugin` / `defineChannelMessageAdapter`: the shape every herald channel plugin
 * has (DESIGN §8), so a reader who knows one plugin knows all.
 *
 * @module
 */
import {
  type ChannelMessage,
  type ChannelMessageAdapter,
  type ReceiverSink,
  withActionsFallback,
  withCardFallback,
} from "@herald/core";
import type { z } from "zod";
import type {
  ChannelAccount,
  ChannelAccountDeps,
  ChannelPluginDeps,
  ChannelReceiver,
} from "./account.ts";
import { assertStrictConfigSchema } from "./strictConfig.ts";

export type { ChannelPluginDeps } from "./account.ts";

/**
 * Where a receiver hands inbound platform events: `receive(raw, { accountId? })`, the
 * integer `watermark(source)` and the opaque `cursor(source)` trackers, and a logger.
 * See `ReceiverSink` in `@herald/core` (DESIGN §8).
 */
export type ChannelReceiverSink = ReceiverSink;

/** A channel plugin: config schema, adapter factory and optional receiver factory. */
export type ChannelPlugin<TConfig = unknown> = {
  /** Channel id, e.g. `"telegram"`; messages carry it in `ChannelMessage.channel`. */
  id: string;
  /** zod schema of the account config (every object `z.strictObject`); errors name the field path. */
  configSchema: z.ZodType<TConfig>;
  /**
   * Builds the channel adapter for one account, synchronously and without platform I/O (CLI
   * commands such as `herald send` and `herald recover` use it; the gateway uses
   * `createAccount` when the plugin has one).
   */
  createAdapter(config: TConfig, deps: ChannelPluginDeps): ChannelMessageAdapter;
  /**
   * Checks one account's credentials against the platform for `herald doctor` (for example
   * Telegram `getMe`). Never log or return the secret itself.
   */
  checkCredentials?(
    config: TConfig,
    deps: ChannelPluginDeps,
  ): Promise<{ ok: boolean; detail: string }>;
  /**
   * Opens one account (preferred over `createAdapter` / `createReceiver` by the gateway): builds
   * the platform client, asks the platform who the bot is (Telegram `getMe`, Slack `auth.test`,
   * …) so the identity is known before the first echo check, and returns the adapter, the
   * receiver and `close()`. The gateway calls it at start, for every account concurrently.
   *
   * @throws ChannelAccountError when the credentials are rejected (that account is stopped, the
   *   others start); any other error is retried with backoff.
   */
  createAccount?(config: TConfig, deps: ChannelAccountDeps): Promise<ChannelAccount>;
  /** Builds the inbound receiver for one account, when the channel receives (without `createAccount`). */
  createReceiver?(
    config: TConfig,
    sink: ChannelReceiverSink,
    deps: ChannelPluginDeps,
  ): ChannelReceiver;
};

/**
 * Declares a channel plugin (the default export of a plugin package). Every object of
 * `configSchema` must refuse unknown keys (`z.strictObject`), so a typo in a user's config is an
 * error naming the field rather than a silently applied default.
 *
 * @throws TypeError when the id is malformed or the config schema accepts unknown keys.
 *
 * @example
 * export default defineChannelPlugin({
 *   id: "telegram",
 *   configSchema,
 *   createAdapter: (config, deps) => defineChannelMessageAdapter({ id: "telegram", capabilities, render, send }),
 * });
 */
export function defineChannelPlugin<TConfig>(
  plugin: ChannelPlugin<TConfig>,
): ChannelPlugin<TConfig> {
  if (!/^[a-z][a-z0-9-]*$/.test(plugin.id)) {
    throw new TypeError(
      `channel plugin id "${plugin.id}" must be lower-case letters, digits and "-"`,
    );
  }
  assertStrictConfigSchema(plugin.id, plugin.configSchema);
  return plugin;
}

/**
 * Declares a channel message adapter. Checks at definition time what would otherwise fail at
 * the first send: a declared edit/delete capability without the method, a chunking limit
 * without a length. An adapter without `capabilities.cards` gets a `render` that sees a
 * message's `card` as its fallback markdown after the body (`withCardFallback`), so no channel
 * drops a card; likewise an adapter without `capabilities.actions.buttons` sees a message's
 * `actions` as a text fallback ("Reply with: Approve / Reject", `withActionsFallback`).
 * Declared features without their method ([H23]: reactions without `send.react`, ephemeral
 * without `send.sendEphemeral`, DMs without `directMessages`, history without `history`) throw.
 *
 * @throws TypeError naming the inconsistent field.
 */
export function defineChannelMessageAdapter<T extends ChannelMessageAdapter>(adapter: T): T {
  const live = adapter.capabilities.live;
  if (live?.edit && !adapter.send.edit) {
    throw new TypeError(`${adapter.id}: capabilities.live.edit is true but send.edit is missing`);
  }
  if (live?.delete && !adapter.send.delete) {
    throw new TypeError(
      `${adapter.id}: capabilities.live.delete is true but send.delete is missing`,
    );
  }
  if (adapter.capabilities.text.chunking && !adapter.capabilities.text.maxLength) {
    throw new TypeError(
      `${adapter.id}: capabilities.text.chunking needs capabilities.text.maxLength`,
    );
  }
  const caps = adapter.capabilities;
  const missing: Array<[boolean, string]> = [
    [
      (caps.reactions?.add || caps.reactions?.remove) === true && !adapter.send.react,
      "capabilities.reactions needs send.react",
    ],
    [
      caps.ephemeral === true && !adapter.send.sendEphemeral,
      "capabilities.ephemeral needs send.sendEphemeral",
    ],
    [
      caps.directMessages?.open === true && !adapter.directMessages,
      "capabilities.directMessages.open needs directMessages",
    ],
    [caps.history?.conversation === true && !adapter.history, "capabilities.history needs history"],
  ];
  for (const [bad, what] of missing) if (bad) throw new TypeError(`${adapter.id}: ${what}`);
  const cards = caps.cards === true;
  const buttons = caps.actions?.buttons === true;
  if (cards && buttons) return adapter;
  // No native cards / buttons: render sees their fallback markdown after the body (never dropped).
  const render = adapter.render;
  const fallback = (message: ChannelMessage): ChannelMessage => {
    const carded = cards ? message : withCardFallback(message);
    return buttons ? carded : withActionsFallback(carded);
  };
  return {
    ...adapter,
    render: { ...render, render: (message, ctx) => render.render(fallback(message), ctx) },
  } as T;
}
