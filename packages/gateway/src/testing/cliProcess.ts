/**
 * The `herald` CLI as a real child process (from the workspace's sources), for tests that
 * check what an operator sees: its output, its exit code, and the gateway it runs.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../cli/main.ts", import.meta.url));

/** A running `herald …` child process. */
export type CliProcess = {
  child: ChildProcess;
  /** Everything printed so far. */
  output(): { stdout: string; stderr: string };
  /** Resolves with the output at exit. */
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** Resolves with the gateway's URL once `herald start` prints it is running; rejects on exit. */
  running(): Promise<string>;
};

/** Spawns `node --conditions=herald-source <cli> ...args`. Kill it when done (`child.kill`). */
export function spawnCli(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; node?: string } = {},
): CliProcess {
  const child = spawn(
    options.node ?? process.execPath,
    ["--conditions=herald-source", cli, ...args],
    {
      ...(options.cwd ? { cwd: options.cwd } : {}),
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => {
    stdout += d;
  });
  child.stderr?.on("data", (d) => {
    stderr += d;
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once("close", (code) => resolve({ code, stdout, stderr })),
  );
  const running = () =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const m = /herald gateway running: (http:\/\/\S+)/.exec(stdout);
        if (m?.[1]) resolve(m[1]);
      };
      check();
      child.stdout?.on("data", check);
      void done.then((r) => reject(new Error(`herald exited ${r.code}:\n${r.stdout}${r.stderr}`)));
    });
  return { child, output: () => ({ stdout, stderr }), done, running };
}
