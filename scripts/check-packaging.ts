/**
 * `pnpm check`'s packaging step: every publishable package is packed once (`pnpm pack`), served
 * by a registry on 127.0.0.1 (`lib/packaging/registry.ts`), and installed into blank projects
 * outside the repository with npm and with pnpm — no workspace, no overrides — where a new
 * user's path must work (`lib/packaging/scenario.ts`), and where each channel plugin,
 * installed alone beside the gateway, starts with `herald start` (`lib/packaging/alone.ts`), and
 * where `npm create @herald/plugin` / `pnpm create @herald/plugin` makes a plugin whose own
 * `test` (contract suite + mutant catalog) passes (`lib/packaging/create.ts`).
 * One registry and one set of tarballs serve every project; the projects install in parallel
 * (`--jobs` at once; package managers' caches are safe to share). Run the build first.
 *
 *   node scripts/check-packaging.ts                 # npm and pnpm, in parallel
 *   node scripts/check-packaging.ts --manager npm   # one of them
 *   node scripts/check-packaging.ts --jobs 2        # at most 2 projects installing at once
 *   node scripts/check-packaging.ts --keep          # keep the blank projects for a look
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { aloneScenario } from "./lib/packaging/alone.ts";
import { createScenario } from "./lib/packaging/create.ts";
import { checkTarballFiles } from "./lib/packaging/files.ts";
import { packAll, publishableDirs } from "./lib/packaging/pack.ts";
import type { Manager } from "./lib/packaging/project.ts";
import { startRegistry } from "./lib/packaging/registry.ts";
import { CHANNEL_PLUGINS, userScenario } from "./lib/packaging/scenario.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    manager: { type: "string", multiple: true },
    keep: { type: "boolean" },
    jobs: { type: "string", default: "4" },
  },
});
const managers = (values.manager ?? ["npm", "pnpm"]) as Manager[];
const t0 = Date.now();

const dirs = publishableDirs(root);
const missing = dirs.filter((d) => !existsSync(join(d, "dist")));
if (missing.length > 0) {
  console.error(`✗ not built: ${missing.join(", ")} — run pnpm build first`);
  process.exit(1);
}
const packDir = mkdtempSync(join(tmpdir(), "herald-pack-"));
const tarballs = await packAll(dirs, packDir);
console.log(
  `  packed ${tarballs.map((t) => `${t.name}@${t.version}`).join(", ")} (${((Date.now() - t0) / 1000).toFixed(1)}s)`,
);
const fileProblems = checkTarballFiles(root, tarballs);
if (fileProblems.length > 0) {
  console.error(`✗ package contents:\n${fileProblems.map((p) => `  - ${p}`).join("\n")}`);
  process.exit(1);
}
const registry = await startRegistry(tarballs);
const fixtureDir = join(root, "scripts/lib/packaging/fixture");
const log = (line: string) => console.log(line);

/** Runs `tasks` with at most `jobs` at once; settles each like Promise.allSettled. */
async function pool<T>(
  jobs: number,
  tasks: ReadonlyArray<() => Promise<T>>,
): Promise<PromiseSettledResult<T>[]> {
  const results: PromiseSettledResult<T>[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < tasks.length; i = next++) {
      try {
        results[i] = { status: "fulfilled", value: await (tasks[i] as () => Promise<T>)() };
      } catch (reason) {
        results[i] = { status: "rejected", reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker));
  return results;
}

// A passed project is deleted at once, in the background (10 node_modules trees deleted one
// after the other at the end took over a minute).
const removals: Promise<void>[] = [];
const cleanup = async <T extends { project: { dir: string } }>(result: Promise<T>) => {
  const value = await result;
  if (!values.keep) removals.push(rm(value.project.dir, { recursive: true, force: true }));
  else console.log(`  kept ${value.project.dir}`);
  return value;
};

// The long scenarios first (the created plugins' tests, the user's path), so the short alone
// installs fill in around them.
const tasks = [
  ...managers.map((manager) => ({
    name: `${manager} create @herald/plugin`,
    run: () => cleanup(createScenario({ manager, registryUrl: registry.url, log })),
  })),
  ...managers.map((manager) => ({
    name: manager,
    run: () =>
      cleanup(
        userScenario({ manager, registryUrl: registry.url, tarballs, root, fixtureDir, log }),
      ),
  })),
  ...managers.flatMap((manager) =>
    CHANNEL_PLUGINS.map((plugin) => ({
      name: `${manager}: ${plugin} alone`,
      run: () =>
        cleanup(
          aloneScenario({ manager, plugin, registryUrl: registry.url, tarballs, fixtureDir, log }),
        ),
    })),
  ),
];
const results = await pool(
  Number(values.jobs),
  tasks.map((t) => t.run),
);
await registry.close();
let failed = false;
for (const [i, r] of results.entries()) {
  if (r.status === "rejected") {
    failed = true;
    console.error(`\n✗ ${tasks[i]?.name}: ${(r.reason as Error).message}`);
  }
}
await Promise.all(removals);
rmSync(packDir, { recursive: true, force: true });
console.log(
  `  packaging check ${failed ? "failed" : "passed"} in ${((Date.now() - t0) / 1000).toFixed(1)}s`,
);
process.exit(failed ? 1 : 0);
