/**
 * Finds the contract harness of every plugin in a workspace: each `plugins/<name>/package.json`
 * whose `exports["./testing"]` module exports `contractHarness`. qa-channel's own test run uses
 * it to run the suite against every channel in one place; a third-party monorepo can too.
 *
 * @module
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ContractHarness } from "./types.ts";

/** A harness found in the workspace. */
export type DiscoveredHarness = {
  /** The plugin's package name, e.g. `@herald/plugin-telegram`. */
  packageName: string;
  /** The plugin's folder. */
  dir: string;
  harness: ContractHarness;
};

type ExportTarget = string | { [condition: string]: ExportTarget } | null | undefined;

function resolveExport(target: ExportTarget, conditions: readonly string[]): string | undefined {
  if (typeof target === "string") return target;
  if (!target) return undefined;
  for (const condition of conditions) {
    const found = resolveExport(target[condition], conditions);
    if (found) return found;
  }
  return undefined;
}

/**
 * Loads the harnesses of every plugin under `<root>/<pluginsDir>/*`.
 *
 * @param options.root - the workspace root.
 * @param options.pluginsDir - folder holding the plugins. @defaultValue "plugins"
 * @param options.conditions - export conditions tried in order.
 *   @defaultValue ["herald-source", "import", "default"] (sources first: no stale builds)
 * @returns harnesses sorted by package name; plugins without a `./testing` export or without
 *   `contractHarness` are left out.
 * @throws Error when a `./testing` module fails to load (a broken harness must not be skipped).
 */
export async function discoverWorkspaceHarnesses(options: {
  root: string;
  pluginsDir?: string;
  conditions?: readonly string[];
}): Promise<DiscoveredHarness[]> {
  const base = resolve(options.root, options.pluginsDir ?? "plugins");
  const conditions = options.conditions ?? ["herald-source", "import", "default"];
  const found: DiscoveredHarness[] = [];
  for (const entry of readdirSync(base, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = join(base, entry.name);
    const manifestPath = join(dir, "package.json");
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
      name: string;
      exports?: Record<string, ExportTarget>;
    };
    const target = resolveExport(manifest.exports?.["./testing"], conditions);
    if (!target) continue;
    const mod = (await import(resolve(dir, target))) as { contractHarness?: ContractHarness };
    if (!mod.contractHarness) continue;
    found.push({ packageName: manifest.name, dir, harness: mod.contractHarness });
  }
  return found.sort((a, b) => a.packageName.localeCompare(b.packageName));
}
