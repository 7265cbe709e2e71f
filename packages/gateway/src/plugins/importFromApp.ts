/**
 * Imports a package the way a user expects from a config that names it: from the config
 * file's folder first (the bot's own `node_modules`), then from the current folder, and only
 * then from the gateway's own resolution. Node resolves each step (`createRequire(parent)`,
 * `exports` and conditions included); nothing here walks `node_modules` by hand.
 *
 * @module
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { HeraldError } from "@herald/core";

/**
 * A package that none of the folders could resolve: names the package, every place looked
 * and the install command for the first folder.
 */
export class PackageNotInstalledError extends HeraldError {
  readonly packageName: string;
  readonly looked: readonly string[];
  constructor(packageName: string, looked: readonly string[], cause?: unknown) {
    super(
      "HERALD_PACKAGE_NOT_INSTALLED",
      `${packageName} is not installed: looked in ${looked.join(", then ")}`,
      cause === undefined ? undefined : { cause },
    );
    this.packageName = packageName;
    this.looked = looked;
  }
}

/** The install command for `name` in `dir`: npm's and pnpm's. */
export function installCommand(name: string, dir: string): string {
  return `cd ${dir} && npm install ${name} (or: pnpm add ${name})`;
}

/** The package part of a specifier: `@scope/name/sub` → `@scope/name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

/**
 * True when `error` says the package itself is missing from that folder (not a broken
 * package: a missing dependency *inside* it, a syntax error, an unexported subpath).
 */
function isMissing(error: unknown, specifier: string): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  if (e?.code !== "MODULE_NOT_FOUND" && e?.code !== "ERR_MODULE_NOT_FOUND") return false;
  const name = packageOf(specifier);
  // Node names the specifier it could not find: ours, not one our package imports.
  return (
    new RegExp(`['"]${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(/[^'"]*)?['"]`).test(
      e.message ?? "",
    ) || !/['"][^'"]+['"]/.test(e.message ?? "")
  );
}

/**
 * Imports `specifier` from the first of `dirs` that resolves it, else from the gateway's own
 * resolution (a package installed beside the gateway, e.g. hoisted by npm).
 *
 * @param dirs - folders to resolve from, in order (the config's folder, then the current one).
 * @throws {@link PackageNotInstalledError} when no folder has the package; any other error of
 *   resolving or evaluating the module as it is.
 */
export async function importFromApp<T>(specifier: string, dirs: readonly string[]): Promise<T> {
  const unique = [...new Set(dirs)];
  for (const dir of unique) {
    let url: string;
    try {
      // A file in `dir` as the parent: Node resolves from dir/node_modules, then its parents.
      url = pathToFileURL(
        createRequire(join(dir, "__herald_resolve__.js")).resolve(specifier),
      ).href;
    } catch (error) {
      if (isMissing(error, specifier)) continue;
      throw error;
    }
    return (await import(url)) as T;
  }
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    if (isMissing(error, specifier))
      throw new PackageNotInstalledError(
        packageOf(specifier),
        [...unique, "the @herald/gateway package's own dependencies"],
        error,
      );
    throw error;
  }
}
