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

type PluginManifest = {
  name: string;
  exports?: Record<string, ExportTarget>;
  herald?: { contractSuite?: boolean };
};

function resolveExport(target: ExportTarget, conditions: readonly string[]): string | undefined {
  if (typeof target === "string") return target;
  if (!target) return undefined;
  for (const condition of conditions) {
    const found = resolveExport(target[condition], conditions);
    if (found) return found;
  }
  return undefined;
}

/** A workspace plugin whose contract harness cannot be found: the run must not pass without it. */
export class ContractDiscoveryError extends Error {
  override name = "ContractDiscoveryError";
}

/** The nearest name among `names` to `wanted` (case-insensitive edit distance ≤ 3), if any. */
function nearest(wanted: string, names: readonly string[]): string | undefined {
  const distance = (a: string, b: string): number => {
    const row = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      let prev = row[0] ?? 0;
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const cur = row[j] ?? 0;
        row[j] = Math.min(cur + 1, (row[j - 1] ?? 0) + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
        prev = cur;
      }
    }
    return row[b.length] ?? 0;
  };
  let best: { name: string; d: number } | undefined;
  for (const name of names) {
    const d = distance(wanted.toLowerCase(), name.toLowerCase());
    if (d <= 3 && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}

/**
 * Loads the harnesses of every plugin under `<root>/<pluginsDir>/*`. Every plugin there must
 * ship one: a folder with a `package.json` and no `./testing` export, or a `./testing` module
 * without a `contractHarness` export, fails the run with the fix (a misnamed export must not
 * leave a plugin silently untested). A package that is not a channel opts out with
 * `"herald": { "contractSuite": false }` in its `package.json`.
 *
 * @param options.root - the workspace root.
 * @param options.pluginsDir - folder holding the plugins. @defaultValue "plugins"
 * @param options.conditions - export conditions tried in order.
 *   @defaultValue ["herald-source", "import", "default"] (sources first: no stale builds)
 * @param options.shard - only the plugins of one shard: those at positions `index`,
 *   `index + count`, … of the package names in order (0-based), so test files can split the
 *   suite between Vitest workers; the others are neither loaded nor checked.
 *   @defaultValue every plugin
 * @returns harnesses sorted by package name.
 * @throws ContractDiscoveryError naming every plugin without a harness and the fix.
 * @throws Error when a `./testing` module fails to load (a broken harness must not be skipped).
 * @throws RangeError when `shard` is not `0 ≤ index < count`.
 */
export async function discoverWorkspaceHarnesses(options: {
  root: string;
  pluginsDir?: string;
  conditions?: readonly string[];
  shard?: { index: number; count: number };
}): Promise<DiscoveredHarness[]> {
  const base = resolve(options.root, options.pluginsDir ?? "plugins");
  const conditions = options.conditions ?? ["herald-source", "import", "default"];
  const { shard } = options;
  if (shard && !(Number.isInteger(shard.index) && shard.index >= 0 && shard.index < shard.count)) {
    throw new RangeError(`shard ${shard.index} of ${shard.count}: want 0 ≤ index < count`);
  }
  const found: DiscoveredHarness[] = [];
  const problems: string[] = [];
  const plugins: Array<{ dir: string; manifest: PluginManifest }> = [];
  for (const entry of readdirSync(base, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = join(base, entry.name);
    const manifestPath = join(dir, "package.json");
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as PluginManifest;
    if (manifest.herald?.contractSuite === false) continue;
    plugins.push({ dir, manifest });
  }
  plugins.sort((a, b) => a.manifest.name.localeCompare(b.manifest.name));
  for (const [position, { dir, manifest }] of plugins.entries()) {
    if (shard && position % shard.count !== shard.index) continue;
    const target = resolveExport(manifest.exports?.["./testing"], conditions);
    if (!target) {
      problems.push(
        `${manifest.name} (${dir}): package.json has no "./testing" export — add ` +
          `exports["./testing"] pointing at a module that exports \`contractHarness\` ` +
          `(or set "herald": { "contractSuite": false } if it is not a channel)`,
      );
      continue;
    }
    const file = resolve(dir, target);
    const mod = (await import(file)) as Record<string, unknown>;
    const harness = mod.contractHarness as ContractHarness | undefined;
    if (!harness || typeof harness.createAdapter !== "function") {
      const close = nearest("contractHarness", Object.keys(mod));
      problems.push(
        `${manifest.name}: ${file} exports no \`contractHarness\`` +
          (close ? ` (found \`${close}\`: rename it to \`contractHarness\`)` : "") +
          (harness ? " (it has no createAdapter)" : "") +
          ` — export the plugin's ContractHarness as \`export const contractHarness = …\``,
      );
      continue;
    }
    found.push({ packageName: manifest.name, dir, harness });
  }
  if (problems.length > 0) {
    throw new ContractDiscoveryError(
      `contract suite: ${problems.length} workspace plugin(s) without a contract harness:\n` +
        problems.map((p) => `  - ${p}`).join("\n"),
    );
  }
  return found.sort((a, b) => a.packageName.localeCompare(b.packageName));
}
