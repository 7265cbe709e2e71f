#!/usr/bin/env node
/**
 * The `herald` bin: checks the Node version first — the CLI (`program.ts`) imports the store,
 * which needs `node:sqlite` — then runs the CLI. On an older Node it prints one line naming
 * the Node it needs and exits 1.
 *
 * @module
 */
import { nodeVersionProblem } from "./nodeVersion.ts";

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
const { runCli } = await import("./program.ts");
await runCli();
