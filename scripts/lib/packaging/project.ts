/**
 * A blank project outside the repository, installed with npm or pnpm from a registry, and the
 * commands a new user runs in it. Every command has a time limit; a failure carries the
 * command's output.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scaledMs } from "@herald/core/testing";

/** The package managers the check installs with. */
export type Manager = "npm" | "pnpm";

/** A command that failed (exit code, timeout or missing output), with its output. */
export class PackagingStepError extends Error {
  readonly step: string;
  readonly output: string;
  constructor(step: string, reason: string, output: string) {
    super(`${step}: ${reason}\n${output.trim().split("\n").slice(-40).join("\n")}`);
    this.step = step;
    this.output = output;
  }
}

/** What a finished command printed. */
export type RunResult = { code: number | null; stdout: string; stderr: string };

/** Runs a command; resolves with its output (rejects only on spawn errors and timeouts). */
export function run(
  cmd: string,
  args: readonly string[],
  options: {
    cwd: string;
    env?: NodeJS.ProcessEnv;
    timeoutMs?: number;
    /** Resolve (and SIGTERM the command) as soon as stdout contains this. */
    until?: string;
  },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
      // Own process group: npx / pnpm exec do not pass signals on, so signal the whole group.
      detached: true,
    });
    const signal = (sig: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, sig);
      } catch {
        // already gone
      }
    };
    let stdout = "";
    let stderr = "";
    let matched = false;
    const timer = setTimeout(
      () => {
        signal("SIGKILL");
        reject(
          new PackagingStepError(
            `${cmd} ${args.join(" ")}`,
            `timed out after ${options.timeoutMs} ms`,
            stdout + stderr,
          ),
        );
      },
      scaledMs(options.timeoutMs ?? 120_000),
    );
    child.stdout.on("data", (d) => {
      stdout += d;
      if (options.until && !matched && stdout.includes(options.until)) {
        matched = true;
        signal("SIGTERM");
      }
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code: matched ? 0 : code, stdout, stderr });
    });
  });
}

/** A blank project folder with an `.npmrc` routing `@herald/*` to `registryUrl`. */
export type BlankProject = { dir: string; manager: Manager };

/** Creates a blank ESM project with these dependencies and the fixture files. */
export function createProject(options: {
  manager: Manager;
  registryUrl: string;
  dependencies: Record<string, string>;
  devDependencies?: Record<string, string>;
  fixtureDir?: string;
}): BlankProject {
  const dir = mkdtempSync(join(tmpdir(), `herald-blank-${options.manager}-`));
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify(
      {
        name: "blank-bot",
        private: true,
        type: "module",
        dependencies: options.dependencies,
        devDependencies: options.devDependencies ?? {},
      },
      null,
      2,
    )}\n`,
  );
  writeFileSync(join(dir, ".npmrc"), `@herald:registry=${options.registryUrl}/\n`);
  if (options.fixtureDir) cpSync(options.fixtureDir, dir, { recursive: true });
  return { dir, manager: options.manager };
}

/** The install command of a manager: all of package.json, or `add` these specs. */
function installArgs(manager: Manager, add: readonly string[], dev: boolean): [string, string[]] {
  if (manager === "npm") {
    return [
      "npm",
      [
        "install",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        ...(dev ? ["--save-dev"] : []),
        ...add,
      ],
    ];
  }
  return add.length === 0
    ? ["pnpm", ["install", "--prefer-offline", "--config.confirmModulesPurge=false"]]
    : ["pnpm", ["add", "--prefer-offline", ...(dev ? ["--save-dev"] : []), ...add]];
}

/** Installs the project's dependencies, or adds `add`. */
export async function install(
  project: BlankProject,
  add: readonly string[] = [],
  options: { dev?: boolean; timeoutMs?: number } = {},
): Promise<void> {
  const [cmd, args] = installArgs(project.manager, add, options.dev ?? false);
  const step = `${project.manager} ${args.join(" ")}`;
  const result = await run(cmd, args, {
    cwd: project.dir,
    timeoutMs: options.timeoutMs ?? 180_000,
    env: { ...process.env, npm_config_update_notifier: "false", CI: "1" },
  });
  if (result.code !== 0)
    throw new PackagingStepError(step, `exit ${result.code}`, result.stdout + result.stderr);
}

/** Runs a binary the project installed (`npx --no-install` / `pnpm exec`). */
export function exec(
  project: BlankProject,
  bin: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; until?: string } = {},
): Promise<RunResult> {
  const [cmd, pre] =
    project.manager === "npm" ? ["npx", ["--no-install", bin]] : ["pnpm", ["exec", bin]];
  return run(cmd, [...pre, ...args], { cwd: project.dir, ...options });
}

/** Fails unless the result exited 0 (or `code`) and its output matches `pattern`. */
export function expectOutput(
  step: string,
  result: RunResult,
  pattern: RegExp,
  code: number | null = 0,
): void {
  const output = result.stdout + result.stderr;
  if (result.code !== code)
    throw new PackagingStepError(step, `exit ${result.code}, expected ${code}`, output);
  if (!pattern.test(output))
    throw new PackagingStepError(step, `output does not match ${pattern}`, output);
}
