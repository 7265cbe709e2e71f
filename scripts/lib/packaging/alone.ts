/**
 * Each channel plugin installed alone ([H28] C46): a blank project with `@herald/gateway` and
 * that one plugin — nothing else, so nothing a hoisting package manager happens to place
 * beside the gateway — where `herald start` must find the plugin next to the config and start
 * it against the plugin's own fake platform (`fixture/start-alone.mjs`). The Telegram plugin
 * gets this step inside the user scenario (its project already has exactly these two packages).
 */
import {
  type BlankProject,
  createProject,
  expectOutput,
  install,
  type Manager,
  run,
} from "./project.ts";
import type { Tarball } from "./registry.ts";

/** Runs `herald start` with only `plugin` installed (the project's current dependencies). */
export async function startAlone(project: BlankProject, plugin: string): Promise<void> {
  expectOutput(
    `node start-alone.mjs ${plugin}`,
    await run("node", ["start-alone.mjs", plugin], { cwd: project.dir, timeoutMs: 90_000 }),
    new RegExp(`START OK ${plugin.replace("/", "\\/")}`),
  );
}

/** Installs the gateway and `plugin` alone with `manager`, then starts it with `herald start`. */
export async function aloneScenario(options: {
  manager: Manager;
  plugin: string;
  registryUrl: string;
  tarballs: readonly Tarball[];
  fixtureDir: string;
  log: (line: string) => void;
}): Promise<{ project: BlankProject }> {
  const { manager, plugin } = options;
  const version = (name: string) => {
    const t = options.tarballs.find((x) => x.name === name);
    if (!t) throw new Error(`${name} was not packed`);
    return t.version;
  };
  const project = createProject({
    manager,
    registryUrl: options.registryUrl,
    dependencies: {
      "@herald/gateway": version("@herald/gateway"),
      [plugin]: version(plugin),
    },
    fixtureDir: options.fixtureDir,
  });
  const t0 = Date.now();
  await install(project);
  const t1 = Date.now();
  await startAlone(project, plugin);
  options.log(
    `  [${manager}] ${plugin} alone: install (${((t1 - t0) / 1000).toFixed(1)}s), herald start (${((Date.now() - t1) / 1000).toFixed(1)}s)`,
  );
  return { project };
}
