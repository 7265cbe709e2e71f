/**
 * Scaffolding shared by the contract suite's crash tests that run a child script twice: a temp
 * folder per `describe` block, the child run (killed at a failpoint, or not) and the check that
 * the kill happened.
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChildResult, runNodeChild } from "@herald/plugin-sdk/testing";
import { afterAll, expect } from "vitest";
import { CHILD_NODE_ARGS, childScript } from "./childProcess.ts";

/**
 * A temp folder under the OS temp dir named `prefix…`, made on the first call of the returned
 * function and removed after all tests of the enclosing `describe` block (call it inside one).
 */
export function crashDir(prefix: string): () => string {
  let dir: string | undefined;
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    dir ??= mkdtempSync(join(tmpdir(), prefix));
    return dir;
  };
}

/**
 * Runs the child script `name` (see {@link childScript}) with `config` as JSON in argv[2];
 * with `killAt`, the failpoint of that name is armed to SIGKILL the child.
 */
export function runCrashChild(name: string, config: object, killAt?: string): Promise<ChildResult> {
  return runNodeChild(childScript(name), [JSON.stringify(config)], {
    ...(killAt !== undefined ? { failpoints: { [killAt]: "kill" } } : {}),
    nodeArgs: CHILD_NODE_ARGS,
  });
}

/** Asserts that `result`'s child was killed (at `failpoint`); says so with its stderr if not. */
export function expectKilledAt(result: ChildResult, failpoint: string): void {
  expect(result.killed, `the child was not killed at ${failpoint}: ${result.stderr}`).toBe(true);
}
