/**
 * Counts a plugin's adapter lines the one way [H27] states the goal ("≤ 150"): the counter
 * `@herald/create-plugin` ships as `herald-plugin-lines` (logic in
 * `packages/create-plugin/src/adapterLines.ts`), defaulting to the example plugin here.
 *
 *   node scripts/count-adapter-lines.ts                         # examples/plugin-httpchat
 *   node scripts/count-adapter-lines.ts plugins/telegram        # any plugin folder
 *   node scripts/count-adapter-lines.ts --max 150 <folder>      # exit 1 above 150
 */
import { adapterLinesCli } from "../packages/create-plugin/src/adapterLines.ts";

process.exitCode = adapterLinesCli(process.argv.slice(2), "examples/plugin-httpchat");
