/**
 * Where the contract suite's child scripts are: next to this module, as TypeScript in the
 * workspace (run with the `herald-source` condition) or as the built `.mjs` in a package.
 *
 * @module
 */
import { fileURLToPath } from "node:url";

/** Running from TypeScript sources (the workspace) rather than a built package. */
const fromSource = import.meta.url.endsWith(".ts");

/** Node arguments a child script needs (the source condition in the workspace). */
export const CHILD_NODE_ARGS: readonly string[] = fromSource ? ["--conditions=herald-source"] : [];

/** The path of the child script `name` (without extension) next to this module. */
export function childScript(name: string): string {
  return fileURLToPath(new URL(`./${name}.${fromSource ? "ts" : "mjs"}`, import.meta.url));
}
