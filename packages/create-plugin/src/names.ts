/**
 * The names a new plugin gets from the one the author typed: its package name, folder, plugin
 * id and the spellings of the example's names (`httpchat`, `HttpChat`, `httpChat`, `HTTPCHAT`)
 * that the scaffold replaces.
 *
 * @module
 */
import { CreatePluginError } from "./errors.ts";

/** Every spelling of a new plugin's name. */
export type PluginNames = {
  /** The npm package name, as typed: `herald-plugin-acme-chat` or `@me/herald-plugin-acme-chat`. */
  packageName: string;
  /** The folder it is created in (the package name without its scope). */
  folder: string;
  /** The channel id (`defineChannelPlugin({ id })`): the name without `herald-plugin-` / `plugin-`. */
  id: string;
  /** `AcmeChat`: class and type names (`FakeAcmeChat`, `AcmeChatConfig`). */
  pascal: string;
  /** `acmeChat`: function and value names (`acmeChatClient`). */
  camel: string;
  /** `ACME_CHAT`: constants and env var names (`ACME_CHAT_TOKEN`). */
  upper: string;
};

/** npm's rule for a package name (lower case, URL-safe, optionally scoped), at most 214 characters. */
const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/;
/** The plugin id rule of `defineChannelPlugin`. */
const PLUGIN_ID = /^[a-z][a-z0-9-]*$/;

/**
 * Derives every spelling from `name`.
 *
 * @example
 * pluginNames("@me/herald-plugin-acme-chat")
 * // → { packageName: "@me/herald-plugin-acme-chat", folder: "herald-plugin-acme-chat",
 * //     id: "acme-chat", pascal: "AcmeChat", camel: "acmeChat", upper: "ACME_CHAT" }
 * @throws CreatePluginError (`bad_name`) when `name` is not an npm package name, or leaves no
 *   plugin id that starts with a letter and holds only `a-z`, `0-9` and `-`.
 */
export function pluginNames(name: string): PluginNames {
  if (name.length > 214 || !PACKAGE_NAME.test(name))
    throw new CreatePluginError(
      "bad_name",
      `"${name}" is not an npm package name: use lower-case letters, digits, "-", "." and "_" (optionally @scope/name), e.g. herald-plugin-acme`,
    );
  const folder = name.replace(/^@[^/]+\//, "");
  const id = folder.replace(/^(?:herald-)?plugin-/, "");
  if (!PLUGIN_ID.test(id) || id.endsWith("-") || id.includes("--"))
    throw new CreatePluginError(
      "bad_name",
      `"${name}" gives the plugin id "${id}": an id starts with a letter and holds only a-z, 0-9 and single "-" (e.g. herald-plugin-acme-chat → acme-chat)`,
    );
  const words = id.split("-");
  const pascal = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("");
  return {
    packageName: name,
    folder,
    id,
    pascal,
    camel: pascal.charAt(0).toLowerCase() + pascal.slice(1),
    upper: words.join("_").toUpperCase(),
  };
}
