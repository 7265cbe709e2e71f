#!/usr/bin/env node
/**
 * `npm create @herald/plugin <name> [--dir <folder>]`: creates the plugin and says what to run
 * next, in the package manager that ran it. A refusal prints why and exits 1.
 *
 * @module
 */
import { relative } from "node:path";
import { parseArgs } from "node:util";
import { CreatePluginError } from "./errors.ts";
import { scaffold } from "./scaffold.ts";
import { loadTemplate } from "./template.ts";

const USAGE = "usage: npm create @herald/plugin <name> [-- --dir <folder>]";

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options: { dir: { type: "string" } } });
  } catch (error) {
    throw new CreatePluginError("bad_arguments", `${(error as Error).message}\n${USAGE}`);
  }
}

function main(argv: string[]): number {
  const parsed = parse(argv);
  const [name, ...rest] = parsed.positionals;
  if (!name || rest.length > 0)
    throw new CreatePluginError("bad_arguments", `give exactly one plugin name\n${USAGE}`);
  const created = scaffold({
    name,
    template: loadTemplate(),
    ...(parsed.values.dir ? { dir: parsed.values.dir } : {}),
  });
  const pm = (process.env.npm_config_user_agent ?? "npm").split("/")[0] === "pnpm" ? "pnpm" : "npm";
  const where = relative(process.cwd(), created.dir) || ".";
  console.log(`Created ${created.names.packageName} (plugin id "${created.names.id}") in ${where}:
${created.files.map((f) => `  ${f}`).join("\n")}

Next:
  cd ${where}
  ${pm} install
  ${pm} test        # the contract suite and the mutant catalog, green out of the box

Then make it yours: README.md → "Make it yours".`);
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof CreatePluginError)) throw error;
  console.error(`create-plugin: ${error.message}`);
  process.exitCode = 1;
}
