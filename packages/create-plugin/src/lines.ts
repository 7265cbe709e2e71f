#!/usr/bin/env node
/**
 * `herald-plugin-lines [--max <n>] [<plugin folder>]`: counts a plugin's adapter lines the one
 * way herald states its goal ("≤ 150"): every `.ts` file under the plugin's `src/` except tests
 * (`*.test.ts`) and `src/testing/` (the fake platform and the contract harness); a line counts
 * when it holds anything but whitespace and comments (comments found by parsing,
 * `adapterLines.ts`). Prints each file and the total; with `--max`, exits 1 above it.
 *
 *   npx -p @herald/create-plugin herald-plugin-lines            # the plugin in this folder
 *   npx -p @herald/create-plugin herald-plugin-lines --max 150 path/to/plugin
 *
 * @module
 */
import { adapterLinesCli } from "./adapterLines.ts";

process.exitCode = adapterLinesCli(process.argv.slice(2));
