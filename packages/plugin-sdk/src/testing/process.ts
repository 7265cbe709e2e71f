/**
 * Child processes for crash tests (DESIGN §9): start a real process with core failpoints armed
 * through `HERALD_FAILPOINTS` (`send.after_sending=kill`…), let it die, start it again without,
 * and assert what the platform shows.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { scaledMs, trackChild } from "@herald/core/testing";

/** An action of an armed failpoint: `kill` (SIGKILL), `throw`, `delay:<ms>`, optionally `@<n>` (the n-th hit). */
export type FailpointAction =
  | "kill"
  | "throw"
  | `delay:${number}`
  | `${"kill" | "throw"}@${number}`;

/**
 * Formats failpoints for `HERALD_FAILPOINTS`.
 *
 * @example failpointsEnv({ "send.after_platform_accept": "kill@2" }) // "send.after_platform_accept=kill@2"
 */
export function failpointsEnv(failpoints: Readonly<Record<string, FailpointAction>>): string {
  return Object.entries(failpoints)
    .map(([name, action]) => `${name}=${action}`)
    .join(";");
}

/** How a child process ended. */
export type ChildResult = {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** True when it died of SIGKILL (an armed `kill` failpoint). */
  killed: boolean;
  stdout: string;
  stderr: string;
};

/** Options of {@link runNodeChild}. */
export type RunChildOptions = {
  /** Failpoints to arm in the child. */
  failpoints?: Readonly<Record<string, FailpointAction>>;
  /** Extra environment. */
  env?: Readonly<Record<string, string>>;
  /**
   * Extra Node flags, e.g. `["--conditions=herald-source"]` to run workspace packages from
   * their TypeScript sources.
   */
  nodeArgs?: readonly string[];
  /**
   * Kills the child (SIGKILL) when it runs longer than this many ms on an idle machine; the
   * limit is multiplied by the suite's time scale (`HERALD_TEST_TIME_SCALE`, see `scaledMs`),
   * so a crash test holds on a busy machine. @defaultValue 30_000
   */
  timeoutMs?: number;
};

/**
 * Runs `node [nodeArgs] script ...args` and resolves when it exits (never rejects on a non-zero
 * exit: crash tests expect deaths).
 *
 * The child is registered for teardown (`trackChild`): when the test times out or fails before
 * the child ends, the suite's teardown kills it, so no child outlives its test file.
 *
 * @throws Error when the child outlives its (scaled) `timeoutMs` (it is killed first).
 */
export function runNodeChild(
  script: string,
  args: readonly string[],
  options: RunChildOptions = {},
): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = trackChild(
      spawn(process.execPath, [...(options.nodeArgs ?? []), script, ...args], {
        env: {
          ...process.env,
          ...options.env,
          HERALD_FAILPOINTS: options.failpoints ? failpointsEnv(options.failpoints) : "",
        },
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const timeoutMs = scaledMs(options.timeoutMs ?? 30_000);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`child ${script} ran longer than ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, killed: signal === "SIGKILL", stdout, stderr });
    });
  });
}
