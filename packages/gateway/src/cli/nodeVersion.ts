/**
 * The Node version check of the `herald` CLI: runs before anything that needs `node:sqlite`
 * is imported, so an older Node prints one line naming the Node it needs instead of a
 * `node:sqlite` stack ([H28] C51). No imports: this module must load on any Node.
 *
 * @module
 */

/**
 * The first Node herald runs on (package.json `engines.node`): 22.18 is the first Node 22 with
 * `node:sqlite` unflagged with the busy timeout and `isTransaction`, and type stripping.
 */
export const MIN_NODE_VERSION = "22.18.0";

/** True when `version` ("22.17.1", "v24.1.0") is at least {@link MIN_NODE_VERSION}. */
export function nodeVersionOk(version: string): boolean {
  const have = version.replace(/^v/, "").split(".").map(Number);
  const need = MIN_NODE_VERSION.split(".").map(Number);
  for (let i = 0; i < need.length; i++) {
    const d = (have[i] ?? 0) - (need[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return true;
}

/** The one line printed on a Node below the floor; undefined when `version` is enough. */
export function nodeVersionProblem(version: string): string | undefined {
  if (nodeVersionOk(version)) return undefined;
  return `herald: needs Node.js >= ${MIN_NODE_VERSION.replace(/\.0$/, "")} (this is Node ${version.replace(/^v/, "")}); install Node 24 LTS from https://nodejs.org or with your version manager (e.g. nvm install 24)`;
}
