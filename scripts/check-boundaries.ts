/**
 * `pnpm check:boundaries`: fails when a workspace package imports across the dependency
 * boundaries of DESIGN §1 (rules in `lib/boundaries.ts`). Imports are read with oxc-parser.
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseSync } from "oxc-parser";
import { globSync } from "tinyglobby";
import {
  checkImport,
  type ImportSite,
  type PackageInfo,
  type Violation,
} from "./lib/boundaries.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

function imports(file: string): ImportSite[] {
  const source = readFileSync(file, "utf8");
  const { module, errors } = parseSync(file, source);
  if (errors.length > 0) throw new Error(`${file}: ${errors[0]?.message}`);
  const rel = relative(root, file);
  const specs = [
    ...module.staticImports.map((i) => i.moduleRequest.value),
    ...module.staticExports.flatMap((e) => e.entries.map((x) => x.moduleRequest?.value)),
    ...module.dynamicImports.map((d) => {
      const raw = source.slice(d.moduleRequest.start, d.moduleRequest.end);
      return /^["'`][^"'`$]*["'`]$/.test(raw) ? raw.slice(1, -1) : undefined;
    }),
  ];
  return specs
    .filter((s): s is string => typeof s === "string")
    .map((specifier) => ({ file: rel, specifier }));
}

const violations: Violation[] = [];
let files = 0;
for (const manifest of globSync(
  [
    "packages/*/package.json",
    "plugins/*/package.json",
    "examples/*/package.json",
    "apps/*/package.json",
  ],
  { cwd: root },
)) {
  const json = JSON.parse(readFileSync(join(root, manifest), "utf8"));
  const pkg: PackageInfo = {
    name: json.name,
    dir: dirname(manifest),
    dependencies: Object.keys(json.dependencies ?? {}),
    devDependencies: Object.keys(json.devDependencies ?? {}),
    peerDependencies: Object.keys(json.peerDependencies ?? {}),
    platformSdk: json.herald?.platformSdk ?? [],
  };
  for (const file of globSync([`${pkg.dir}/src/**/*.ts`], { cwd: root, absolute: true })) {
    files += 1;
    for (const site of imports(file)) {
      const v = checkImport(pkg, site, root);
      if (v) violations.push(v);
    }
  }
}

if (violations.length > 0) {
  for (const v of violations) console.error(`✗ ${v.file}: import "${v.specifier}" — ${v.rule}`);
  console.error(`\n${violations.length} dependency-boundary violation(s). See DESIGN §1.`);
  process.exit(1);
}
console.log(`✓ dependency boundaries hold (${files} files)`);
