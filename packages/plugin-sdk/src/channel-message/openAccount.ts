/**
 * Opening one account of a channel plugin, the one copy: the gateway's account supervisor and
 * the contract suite's `accounts.plugin-load` both call it, so a green suite says the plugin
 * opens the way a gateway opens it (DESIGN §8 "Accounts").
 *
 * @module
 */
import type { ChannelMessageAdapter } from "@herald/core";
import type { ChannelAccount, ChannelAccountDeps } from "./account.ts";
import type { ChannelPlugin } from "./plugin.ts";

/**
 * Opens one account: `plugin.createAccount(config, deps)` when the plugin has it (the preferred
 * path: it checks the credentials and learns who the bot is), else the synchronous
 * `createAdapter` (or `adapter`, when the caller built it already) and `createReceiver`, with a
 * `close()` that does nothing.
 *
 * @param config - the account config, already parsed by `plugin.configSchema`.
 * @param adapter - an adapter built from this config before (the gateway's CLI path); used
 *   only without `createAccount`.
 * @throws what `createAccount` throws (`ChannelAccountError` for rejected credentials).
 */
export async function openChannelAccount<TConfig>(
  plugin: ChannelPlugin<TConfig>,
  config: TConfig,
  deps: ChannelAccountDeps,
  adapter?: ChannelMessageAdapter,
): Promise<ChannelAccount> {
  if (plugin.createAccount) return plugin.createAccount(config, deps);
  const { sink, signal: _signal, ...pluginDeps } = deps;
  const receiver = plugin.createReceiver?.(config, sink, pluginDeps);
  return {
    adapter: adapter ?? plugin.createAdapter(config, pluginDeps),
    ...(receiver ? { receiver } : {}),
    close: async () => {},
  };
}
