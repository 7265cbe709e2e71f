/**
 * The template of a new plugin is the example plugin itself (`examples/plugin-httpchat`): one
 * source of truth. A build copies its files into `dist/template.json`
 * (`scripts/write-template.ts`, run by `build` and `prepack`); a source checkout reads the
 * example directly.
 *
 * @module
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CreatePluginError } from "./errors.ts";

/** The example the template is made of, relative to the repository root. */
export const EXAMPLE_DIR = "examples/plugin-httpchat";

/** Packages a new plugin depends on, at the versions of the herald release it was created by. */
export const TEMPLATE_DEPENDENCIES = [
  "@herald/plugin-sdk",
  "@herald/plugin-qa-channel",
  "@types/node",
  "tsdown",
  "typescript",
  "vitest",
] as const;

/** What a new plugin is made of. */
export type Template = {
  /** The example's files by path (`src/**`, `tsdown.config.ts`), with the example's names. */
  files: Record<string, string>;
  /** The example README's "## The API" section (the API the fake implements). */
  apiSection: string;
  /** The version of each of {@link TEMPLATE_DEPENDENCIES}. */
  versions: Record<(typeof TEMPLATE_DEPENDENCIES)[number], string>;
};

const readJson = (path: string) =>
  JSON.parse(readFileSync(path, "utf8")) as {
    version: string;
    devDependencies?: Record<string, string>;
  };

/**
 * Reads the template from a herald repository checkout at `root`.
 * @throws CreatePluginError (`template_missing`) when `root` holds no example plugin.
 */
export function readTemplateFromRepo(root: string): Template {
  const example = join(root, EXAMPLE_DIR);
  if (!existsSync(join(example, "package.json")))
    throw new CreatePluginError("template_missing", `no example plugin at ${example}`);
  const files: Record<string, string> = {};
  for (const file of readdirSync(join(example, "src"), { recursive: true, encoding: "utf8" })) {
    const path = `src/${file.split("\\").join("/")}`;
    if (path.endsWith(".ts")) files[path] = readFileSync(join(example, path), "utf8");
  }
  files["tsdown.config.ts"] = readFileSync(join(example, "tsdown.config.ts"), "utf8");
  const readme = readFileSync(join(example, "README.md"), "utf8");
  const apiSection = /^## The API\n[\s\S]*?(?=\n## |(?![\s\S]))/m.exec(readme)?.[0].trim();
  if (!apiSection)
    throw new CreatePluginError("template_missing", `${example}/README.md has no "## The API"`);
  const tools = readJson(join(root, "package.json")).devDependencies ?? {};
  const tool = (name: string) => {
    const version = tools[name];
    if (!version)
      throw new CreatePluginError("template_missing", `root package.json has no ${name}`);
    return version;
  };
  return {
    files,
    apiSection,
    versions: {
      "@herald/plugin-sdk": readJson(join(root, "packages/plugin-sdk/package.json")).version,
      "@herald/plugin-qa-channel": readJson(join(root, "plugins/qa-channel/package.json")).version,
      "@types/node": tool("@types/node"),
      tsdown: tool("tsdown"),
      typescript: tool("typescript"),
      vitest: tool("vitest"),
    },
  };
}

/**
 * The template of this install: `template.json` beside the built module, else — in a source
 * checkout — the example in the repository above it.
 * @throws CreatePluginError (`template_missing`) when neither is there.
 */
export function loadTemplate(from: string = import.meta.url): Template {
  const here = dirname(fileURLToPath(from));
  const built = join(here, "template.json");
  if (existsSync(built)) return JSON.parse(readFileSync(built, "utf8")) as Template;
  for (let dir = here; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, EXAMPLE_DIR, "package.json"))) return readTemplateFromRepo(dir);
  }
  throw new CreatePluginError(
    "template_missing",
    `no template.json beside ${here} and no herald checkout above it: reinstall @herald/create-plugin`,
  );
}
