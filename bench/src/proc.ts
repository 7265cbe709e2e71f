/**
 * Child processes of the bench: spawned with the repo's source conditions, their first stdout
 * line read as their answer, killed with SIGKILL for crash runs.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";

/** The prefix of a child's answer lines on stdout (other output of its libraries is ignored). */
export const ANSWER = "@@bench ";

/** A running child and its first answer line (without the prefix). */
export type Child = {
  process: ChildProcess;
  firstLine: Promise<string>;
  exited: Promise<number | null>;
};

/** Starts `script` with one JSON argument; stderr goes to the bench's stderr. */
export function startChild(script: string, arg: unknown): Child {
  const child = spawn(
    process.execPath,
    ["--conditions=herald-source", "--no-warnings", script, JSON.stringify(arg)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  const firstLine = new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      for (const line of out.split("\n")) {
        if (line.startsWith(ANSWER) && out.includes(`${line}\n`))
          resolve(line.slice(ANSWER.length));
      }
    });
    void exited.then((code) => reject(new Error(`${script} exited ${code} before answering`)));
  });
  firstLine.catch(() => {});
  return { process: child, firstLine, exited };
}

/** Writes an answer line for the parent. */
export function answer(value: unknown): void {
  process.stdout.write(`${ANSWER}${JSON.stringify(value)}\n`);
}

/** SIGKILLs a child (if still running) and waits for it to be gone. */
export async function kill(child: Child): Promise<void> {
  if (child.process.exitCode === null && child.process.signalCode === null) {
    child.process.kill("SIGKILL");
  }
  await child.exited;
}

/** Waits until `done()` or `timeoutMs`; returns whether it became true. */
export async function until(done: () => boolean, timeoutMs: number, stepMs = 10): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  return true;
}
