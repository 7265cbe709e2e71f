/**
 * Counts a plugin's adapter lines the one way [H27] states the goal ("≤ 150"): every `.ts` file
 * under the plugin's `src/` except tests (`*.test.ts`) and `src/testing/` (the fake platform and
 * the contract harness); a line counts when it holds anything but whitespace and comments
 * (comments found by parsing, `lib/adapterLines.ts`).
 *
 *   node scripts/count-adapter-lines.ts                         # examples/plugin-httpchat
 *   node scripts/count-adapter-lines.ts plugins/telegram        # any plugin folder
 *   node scripts/count-adapter-lines.ts --max 150 <folder>      # exit 1 above 150
 */
import { parseArgs } from "node:util";
import { countAdapterLines } from "./lib/adapterLines.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { max: { type: "string" } },
});
const dir = positionals[0] ?? "examples/plugin-httpchat";
const { files, total } = countAdapterLines(dir);
for (const f of files) console.log(`${String(f.lines).padStart(5)}  ${f.file}`);
console.log(
  `${String(total).padStart(5)}  adapter lines in ${dir} (blank and comment lines not counted)`,
);
if (values.max !== undefined && total > Number(values.max)) {
  console.error(`✗ ${total} > ${values.max}`);
  process.exit(1);
}
