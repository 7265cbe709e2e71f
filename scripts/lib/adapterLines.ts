/**
 * How long a plugin's adapter is, counted one way everywhere ([H27] "≤ 150 lines"): the
 * adapter is every `.ts` file under the plugin's `src/` except tests (`*.test.ts`) and the
 * fake platform under `src/testing/`; a line counts when it holds anything but whitespace and
 * comments (`//`, `/* … *\/`, TSDoc). Comments are found by parsing (oxc-parser), so a `//` inside
 * a string or a URL is code.
 *
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parseSync } from "oxc-parser";

/** One adapter file and its counted lines. */
export type AdapterFileLines = { file: string; lines: number };

/** Lines of `source` (a TypeScript file named `file`) holding code: not blank, not only comments. */
export function codeLines(file: string, source: string): number {
  const { comments, errors } = parseSync(file, source);
  if (errors.length > 0)
    throw new SyntaxError(`${file}: ${errors[0]?.message ?? "does not parse"}`);
  let code = source;
  // Blank each comment out (newlines kept), so only code characters remain.
  for (const c of comments)
    code =
      code.slice(0, c.start) +
      code.slice(c.start, c.end).replace(/[^\n]/g, " ") +
      code.slice(c.end);
  return code.split("\n").filter((line) => line.trim() !== "").length;
}

/** The adapter files of the plugin in `dir`, in path order: `src/**\/*.ts` but tests and `src/testing/`. */
export function adapterFiles(dir: string): string[] {
  const src = join(dir, "src");
  return readdirSync(src, { recursive: true, encoding: "utf8" })
    .map((f) => f.split("\\").join("/"))
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .filter((f) => f !== "testing" && !f.startsWith("testing/"))
    .sort()
    .map((f) => join(src, f));
}

/** Counts the adapter of the plugin in `dir`: each file and the total. */
export function countAdapterLines(dir: string): { files: AdapterFileLines[]; total: number } {
  const files = adapterFiles(dir).map((path) => ({
    file: relative(dir, path).split("\\").join("/"),
    lines: codeLines(path, readFileSync(path, "utf8")),
  }));
  return { files, total: files.reduce((n, f) => n + f.lines, 0) };
}
