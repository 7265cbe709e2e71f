/**
 * `npm create @herald/plugin` / `pnpm create @herald/plugin` as a new plugin author runs them
 * ([H27] item 3): in an empty folder whose `.npmrc` routes `@herald/*` to the local registry,
 * the create command fetches `@herald/create-plugin` from the registry and creates the plugin;
 * the plugin installs its own dependencies (the published `@herald/*` packages) and its own
 * `test` script — the contract suite, the mutant catalog and its unit tests — passes.
 */
import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type BlankProject,
  expectOutput,
  install,
  type Manager,
  PackagingStepError,
  run,
} from "./project.ts";

/** The plugin the scenario creates. */
export const CREATED_PLUGIN = "herald-plugin-acme";

/** Creates a plugin with `manager`'s create command, installs it and runs its `test` script. */
export async function createScenario(options: {
  manager: Manager;
  registryUrl: string;
  log: (line: string) => void;
}): Promise<{ project: BlankProject }> {
  const { manager } = options;
  const parent = mkdtempSync(join(tmpdir(), `herald-create-${manager}-`));
  const npmrc = join(parent, ".npmrc");
  writeFileSync(npmrc, `@herald:registry=${options.registryUrl}/\n`);
  const env = { ...process.env, npm_config_yes: "true", npm_config_update_notifier: "false" };
  const t0 = Date.now();
  // The create package runs from a cache of its own: npx and `pnpm dlx` reuse a cached
  // `@herald/create-plugin` of the same version (an earlier build's template) without asking
  // the registry.
  const created = await run(manager, ["create", "@herald/plugin", CREATED_PLUGIN], {
    cwd: parent,
    env: {
      ...env,
      npm_config_cache: join(parent, ".create-cache"),
      npm_config_cache_dir: join(parent, ".create-cache"),
    },
    timeoutMs: 180_000,
  });
  expectOutput(
    `${manager} create @herald/plugin ${CREATED_PLUGIN}`,
    created,
    new RegExp(`Created ${CREATED_PLUGIN} \\(plugin id "acme"\\)[\\s\\S]*${manager} test`),
  );
  // The new folder is a project of its own: npm and pnpm read the `.npmrc` beside its
  // package.json (a published herald needs none).
  const project: BlankProject = { dir: join(parent, CREATED_PLUGIN), manager };
  cpSync(npmrc, join(project.dir, ".npmrc"));
  const t1 = Date.now();
  await install(project, [], { timeoutMs: 300_000 });
  const t2 = Date.now();
  if (manager !== "npm") {
    // The created plugin is the same code whichever manager made it: its test (contract suite +
    // mutant catalog, ~2 CPU-minutes) runs once, under npm; here it must install and typecheck.
    const typed = await run(manager, ["run", "typecheck"], {
      cwd: project.dir,
      env,
      timeoutMs: 300_000,
    });
    if (typed.code !== 0)
      throw new PackagingStepError(
        `${manager} run typecheck (the created plugin)`,
        `exit ${typed.code}`,
        typed.stdout + typed.stderr,
      );
    options.log(
      `  [${manager}] create @herald/plugin (${((t1 - t0) / 1000).toFixed(1)}s), install (${((t2 - t1) / 1000).toFixed(1)}s), typecheck (${((Date.now() - t2) / 1000).toFixed(1)}s); its test runs under npm`,
    );
    return { project: { dir: parent, manager } };
  }
  const tested = await run(manager, ["test"], {
    cwd: project.dir,
    env: { ...process.env, CI: "1", NO_COLOR: "1" },
    timeoutMs: 1_200_000,
  });
  const output = tested.stdout + tested.stderr;
  // Vitest's summary lines (test titles and the mutant summary may say "failed" themselves).
  const failedSummary = /^\s*(?:Test Files|Tests)\s+[^\n]*\bfailed\b/m.test(output);
  if (tested.code !== 0 || !/^\s*Tests\s+\d+ passed/m.test(output) || failedSummary)
    throw new PackagingStepError(
      `${manager} test (the created plugin)`,
      `exit ${tested.code}`,
      output,
    );
  const catalog = /mutant catalog \([^)]*\): (\d+) mutants, (\d+) killed, 0 survived/.exec(output);
  if (!catalog)
    throw new PackagingStepError(
      `${manager} test (the created plugin)`,
      "no clean mutant catalog summary",
      output,
    );
  const s = (a: number, b: number) => `${((b - a) / 1000).toFixed(1)}s`;
  options.log(
    `  [${manager}] create @herald/plugin (${s(t0, t1)}), install (${s(t1, t2)}), its test: contract suite + ${catalog[2]}/${catalog[1]} mutants killed (${s(t2, Date.now())})`,
  );
  return { project: { dir: parent, manager } };
}
