/**
 * Dependency-boundary rules of DESIGN §1, as a pure function over a package's imports:
 * - plugins (`plugins/*`, and the example plugins under `examples/*`) import only
 *   `@herald/plugin-sdk[/*]`, `node:` builtins and the platform SDKs they list in
 *   `package.json` → `herald.platformSdk` — the SDK and what it needs to run on the platform's
 *   terms (Matrix's Rust crypto needs an IndexedDB in Node: `fake-indexeddb`; Slack names emoji
 *   by its own short codes: `node-emoji`) — (tests and `src/testing/` may also import their
 *   devDependencies, the shared contract suite `@herald/plugin-qa-channel` included — what
 *   docs/plugin-authoring.md "Testing your plugin" tells third parties to do);
 * - `@herald/plugin-sdk` builds on `@herald/core` only (plus its own dependencies);
 * - `@herald/core` imports no plugin, no plugin SDK, no gateway;
 * - nothing but apps (`apps/*`) imports `@herald/gateway`;
 * - a relative import never leaves its package;
 * - inside `@herald/core`, data flows one way (DESIGN §12, STYLE "herald's own habits"):
 *   `receive → activity → turn → live → send → delivery → adapter`, over a base floor
 *   (`context/` — the turn scope, reply context, error info —, `message/`, `state/` and the
 *   top-level helpers). A module imports its own floor or one below, never one above; the
 *   composition roots (`index.ts`, `runtime.ts`, `contract/`, `testing/`) and tests may import
 *   any floor.
 */
import { builtinModules } from "node:module";
import { relative, resolve, sep } from "node:path";

export type PackageInfo = {
  name: string;
  /** Workspace folder relative to the repo root, e.g. `plugins/telegram`. */
  dir: string;
  dependencies: string[];
  devDependencies: string[];
  peerDependencies: string[];
  platformSdk: string[];
};

export type ImportSite = { file: string; specifier: string };
export type Violation = { file: string; specifier: string; rule: string };

const builtins = new Set(builtinModules);

/** The shared contract suite's package: plugin tests and harnesses may import it (a devDependency). */
const CONTRACT_SUITE = "@herald/plugin-qa-channel";

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

function isTestFile(file: string): boolean {
  return (
    /\.test\.ts$/.test(file) ||
    file.includes(`${sep}src${sep}testing${sep}`) ||
    file.includes("/src/testing/")
  );
}

/**
 * Floors of `@herald/core/src`, highest first: a module on floor `n` imports only floors `≤ n`.
 * Folders not listed (and top-level files) are the base floor 0; composition roots are unranked.
 */
export const CORE_FLOW: readonly string[] = [
  "receive",
  "activity",
  "turn",
  "live",
  "send",
  "delivery",
  "adapter",
];
const CORE_ROOTS = new Set(["index.ts", "runtime.ts", "contract", "testing"]);

/** Floor of a path relative to `packages/core/src`: `undefined` for a composition root. */
function coreFloor(relToSrc: string): number | undefined {
  const top = relToSrc.split(/[\\/]/)[0] ?? "";
  if (CORE_ROOTS.has(top)) return undefined;
  const at = CORE_FLOW.indexOf(top);
  return at === -1 ? 0 : CORE_FLOW.length - at;
}

/** A relative import inside core that climbs back up the flow, or `undefined`. */
function coreFlowViolation(pkg: PackageInfo, site: ImportSite, root: string): string | undefined {
  if (isTestFile(site.file)) return undefined;
  const src = resolve(root, pkg.dir, "src");
  const from = relative(src, resolve(root, site.file));
  const to = relative(src, resolve(root, site.file, "..", site.specifier));
  if (from.startsWith("..") || to.startsWith("..") || /(^|[\\/])testing[\\/]/.test(from)) {
    return undefined;
  }
  const fromFloor = coreFloor(from);
  const toFloor = coreFloor(to);
  if (fromFloor === undefined || toFloor === undefined || toFloor <= fromFloor) return undefined;
  const name = (path: string) => path.split(/[\\/]/)[0];
  return `core flows ${CORE_FLOW.join(" → ")}: ${name(from)}/ may not import ${name(to)}/ (move the shared piece down, e.g. to context/)`;
}

/** Checks one import of a package against the rules. */
export function checkImport(
  pkg: PackageInfo,
  site: ImportSite,
  root: string,
): Violation | undefined {
  const { specifier, file } = site;
  const v = (rule: string): Violation => ({ file, specifier, rule });
  if (specifier.startsWith(".")) {
    const target = resolve(root, file, "..", specifier);
    const rel = relative(resolve(root, pkg.dir), target);
    if (rel.startsWith("..")) return v(`relative import leaves ${pkg.dir}`);
    const climb = pkg.name === "@herald/core" ? coreFlowViolation(pkg, site, root) : undefined;
    return climb ? v(climb) : undefined;
  }
  if (specifier.startsWith("node:") || builtins.has(specifier)) return undefined;
  const name = packageNameOf(specifier);
  const isApp = pkg.dir.startsWith("apps/");
  if (name === "@herald/gateway" && !isApp && pkg.name !== "@herald/gateway") {
    return v("only apps may import @herald/gateway");
  }
  if (name === pkg.name) return undefined;
  const declared = [...pkg.dependencies, ...pkg.peerDependencies];
  const test = isTestFile(file);
  if (pkg.dir.startsWith("plugins/") || pkg.dir.startsWith("examples/")) {
    if (name === "@herald/plugin-sdk") return undefined;
    if (name === CONTRACT_SUITE && test && pkg.devDependencies.includes(name)) return undefined;
    if (name.startsWith("@herald/")) return v("plugins import only @herald/plugin-sdk/*");
    if (pkg.platformSdk.includes(name) && declared.includes(name)) return undefined;
    if (test && pkg.devDependencies.includes(name)) return undefined;
    return v(
      `plugins import only @herald/plugin-sdk/* and their platform SDK (package.json herald.platformSdk: ${
        pkg.platformSdk.join(", ") || "none"
      })`,
    );
  }
  if (pkg.name === "@herald/core" && name.startsWith("@herald/")) {
    return v("@herald/core imports no other @herald package");
  }
  if (pkg.name === "@herald/plugin-sdk" && name.startsWith("@herald/") && name !== "@herald/core") {
    return v("@herald/plugin-sdk builds on @herald/core only");
  }
  // A types-only package (`mdast`) is declared through its DefinitelyTyped package (`@types/mdast`).
  const types = `@types/${name.startsWith("@") ? name.slice(1).replace("/", "__") : name}`;
  const isDeclared = (list: string[]) => list.includes(name) || list.includes(types);
  if (!isDeclared(declared) && !(test && isDeclared(pkg.devDependencies))) {
    return v(`${name} is not declared in ${pkg.dir}/package.json`);
  }
  return undefined;
}
