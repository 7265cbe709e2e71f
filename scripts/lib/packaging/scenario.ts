/**
 * The new user's path through the packed packages, in one blank project per package manager:
 *
 * 1. install `@herald/gateway` + `@herald/plugin-telegram` (+ TypeScript) — nothing else;
 *    `herald start` finds the plugin and starts it on the Telegram fake (the other channel
 *    plugins get the same alone, each in its own project: `alone.ts`);
 * 2. `herald --help` runs; `herald demo` says to install the QA channel;
 * 3. every entry point (but `./contract`) imports, with no undeclared runtime import;
 * 4. a TypeScript bot type-checks (`module: nodenext`, no `skipLibCheck` for herald's types)
 *    and, run with Node, answers on the Telegram fake;
 * 5. add the QA channel, store-postgres, the Slack, Discord, Matrix and Google Chat plugins and
 *    Vitest: their entries import; `herald demo` starts;
 *    each plugin's contract suite runs from the project (the QA channel, and every example
 *    plugin under `examples/` whose `./testing` exports `contractHarness`).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startAlone } from "./alone.ts";
import {
  type BlankProject,
  createProject,
  exec,
  expectOutput,
  install,
  type Manager,
  PackagingStepError,
  run,
} from "./project.ts";
import type { Tarball } from "./registry.ts";

/** A timed step of the scenario. */
export type StepTiming = { step: string; ms: number };

/**
 * Channel plugins installed next to the Telegram one in step 5: their entries import from the
 * tarballs (their own contract suites run in the repository's tests, not here, for time).
 */
export const CHANNEL_PLUGINS = [
  "@herald/plugin-slack",
  "@herald/plugin-discord",
  "@herald/plugin-matrix",
  "@herald/plugin-googlechat",
];

/** Packages whose `./testing` `contractHarness` gets the contract suite (plus examples). */
export const CONTRACT_TARGETS_BUILT_IN = ["@herald/plugin-qa-channel"];

/**
 * Example plugins (folders under `examples/`, [H15] item 10) join the contract run by
 * exporting `contractHarness` from their `./testing` entry: this is the hook.
 */
export function contractTargets(tarballs: readonly Tarball[]): string[] {
  const examples = tarballs
    .filter((t) => {
      const exports = (t.manifest.exports ?? {}) as Record<string, unknown>;
      const dir = ((t.manifest.repository ?? {}) as { directory?: string }).directory ?? "";
      return dir.startsWith("examples/") && "./testing" in exports;
    })
    .map((t) => t.name);
  return [...CONTRACT_TARGETS_BUILT_IN, ...examples];
}

/**
 * Splits tsc's errors into ours (the bot, `@herald/*` declarations) and third-party ones
 * (inside other packages' `.d.ts`, e.g. hono's DOM-typed websocket helper), which only
 * `skipLibCheck` or the DOM lib silence and herald cannot fix.
 */
export function typeErrors(output: string): { ours: string[]; thirdParty: string[] } {
  const errors = output.split("\n").filter((l) => /\(\d+,\d+\): error TS\d+/.test(l));
  const isOurs = (l: string) =>
    !l.includes("node_modules/") ||
    /node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?@herald\//.test(l);
  return { ours: errors.filter(isOurs), thirdParty: errors.filter((l) => !isOurs(l)) };
}

/** Runs the scenario with one manager; returns the timings, throws {@link PackagingStepError}. */
export async function userScenario(options: {
  manager: Manager;
  registryUrl: string;
  tarballs: readonly Tarball[];
  root: string;
  fixtureDir: string;
  log: (line: string) => void;
}): Promise<{ project: BlankProject; timings: StepTiming[] }> {
  const { manager, tarballs } = options;
  const version = (name: string) => {
    const t = tarballs.find((x) => x.name === name);
    if (!t) throw new Error(`${name} was not packed`);
    return t.version;
  };
  const rootPkg = JSON.parse(readFileSync(join(options.root, "package.json"), "utf8")) as {
    devDependencies: Record<string, string>;
  };
  const tool = (name: string) => {
    const v = rootPkg.devDependencies[name];
    if (!v) throw new Error(`root package.json has no devDependency ${name}`);
    return v;
  };
  const timings: StepTiming[] = [];
  const step = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const t0 = Date.now();
    try {
      return await fn();
    } finally {
      timings.push({ step: name, ms: Date.now() - t0 });
      options.log(`  [${manager}] ${name} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
    }
  };

  const project = createProject({
    manager,
    registryUrl: options.registryUrl,
    dependencies: {
      "@herald/gateway": version("@herald/gateway"),
      "@herald/plugin-telegram": version("@herald/plugin-telegram"),
    },
    devDependencies: { typescript: tool("typescript"), "@types/node": tool("@types/node") },
    fixtureDir: options.fixtureDir,
  });
  await step("install gateway + telegram", () => install(project));
  await step("herald start with only the Telegram plugin installed", () =>
    startAlone(project, "@herald/plugin-telegram"),
  );
  await step("herald --help", async () =>
    expectOutput("herald --help", await exec(project, "herald", ["--help"]), /Usage: herald/),
  );
  await step("herald demo without the QA channel names the fix", async () =>
    expectOutput(
      "herald demo",
      await exec(project, "herald", ["demo", "--port", "0"], { timeoutMs: 30_000 }),
      /install @herald\/plugin-qa-channel/,
      1,
    ),
  );
  await step("import every entry (no undeclared runtime import)", async () =>
    expectOutput(
      "node smoke.mjs",
      await run("node", ["smoke.mjs"], { cwd: project.dir }),
      /ok {3}@herald\/plugin-telegram\/testing[\s\S]*ok {3}@herald\/core\/testing/,
    ),
  );
  await step("type-check bot.ts (nodenext, herald's types without skipLibCheck)", async () => {
    const result = await exec(project, "tsc", ["-p", "tsconfig.json"]);
    const { ours, thirdParty } = typeErrors(result.stdout + result.stderr);
    if (ours.length > 0 || (result.code !== 0 && thirdParty.length === 0)) {
      const output = ours.join("\n") || result.stdout + result.stderr;
      throw new PackagingStepError("tsc -p tsconfig.json", `exit ${result.code}`, output);
    }
    if (thirdParty.length > 0)
      options.log(
        `  [${manager}] note: ${thirdParty.length} type error(s) inside third-party declarations (skipLibCheck: true hides them; herald's own are clean)`,
      );
  });
  await step("run bot.ts against the Telegram fake", async () =>
    expectOutput(
      "node bot.ts",
      await run("node", ["bot.ts"], { cwd: project.dir, timeoutMs: 60_000 }),
      /REPLY: You said: hello from a blank project/,
    ),
  );

  // The QA channel, store-postgres and every example plugin whose contract suite runs below,
  // plus the other channel plugins: installed from their tarballs with their platform SDKs,
  // every entry (`.` and `./testing`) must import in a blank project too.
  const extra = [
    ...new Set(["@herald/store-postgres", ...CHANNEL_PLUGINS, ...contractTargets(tarballs)]),
  ];
  await step(
    "add QA channel, store-postgres, channel plugins, example plugins, vitest",
    async () => {
      await install(
        project,
        extra.map((n) => `${n}@${version(n)}`),
      );
      await install(project, [`vitest@${tool("vitest")}`], { dev: true });
    },
  );
  await step("import every entry again", async () =>
    expectOutput(
      "node smoke.mjs",
      await run("node", ["smoke.mjs"], { cwd: project.dir }),
      // Every one of them printed its `./testing` line (lookaheads: in any order).
      new RegExp(
        ["@herald/plugin-qa-channel", ...CHANNEL_PLUGINS]
          .map((name) => `(?=[\\s\\S]*ok {3}${name}/testing)`)
          .join(""),
      ),
    ),
  );
  await step("herald demo starts", async () =>
    expectOutput(
      "herald demo",
      await exec(project, "herald", ["demo", "--port", "0"], {
        timeoutMs: 30_000,
        until: "herald demo is running",
      }),
      /herald demo is running[\s\S]*npx herald queue ls -c \.herald\/demo\/herald\.config\.json/,
    ),
  );
  await step("the demo's printed queue hint runs as printed", async () =>
    expectOutput(
      "npx herald queue ls -c .herald/demo/herald.config.json",
      await exec(project, "herald", ["queue", "ls", "-c", ".herald/demo/herald.config.json"]),
      /pending: 0 .*\n[\s\S]*legend:/,
    ),
  );
  for (const target of contractTargets(tarballs)) {
    await step(`contract suite: ${target}`, async () => {
      const result = await exec(project, "vitest", ["run", "contract.test.ts"], {
        env: { ...process.env, HERALD_CONTRACT_HARNESS: target, CI: "1", NO_COLOR: "1" },
        timeoutMs: 240_000,
      });
      expectOutput(`vitest run contract.test.ts (${target})`, result, /Tests\s+\d+ passed/);
    });
  }
  return { project, timings };
}
