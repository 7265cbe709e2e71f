// The adapter line count of [H27] ("≤ 150"): the rule on small sources, and the example plugin
// (the template of `npm create @herald/plugin`) within the goal.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { adapterFiles, codeLines, countAdapterLines } from "./adapterLines.ts";

const root = join(import.meta.dirname, "../..");

describe("codeLines", () => {
  it("counts lines holding code; blank lines, comments and TSDoc do not count", () => {
    const source = [
      "/**",
      " * TSDoc.",
      " */",
      "export const a = 1; // a trailing comment: the line still counts",
      "",
      "   ",
      "// a line comment",
      "/* a block */ const b = 2;",
      "const url = 'http://x//y'; /* not code */",
      "const t = `",
      "// inside a template literal: code",
      "`;",
    ].join("\n");
    expect(codeLines("a.ts", source)).toBe(6);
  });

  it("refuses a file that does not parse, naming it", () => {
    expect(() => codeLines("broken.ts", "const = ;")).toThrow(/broken\.ts/);
  });
});

describe("adapterFiles", () => {
  it("takes src/**/*.ts but tests and src/testing/", () => {
    const dir = mkdtempSync(join(tmpdir(), "herald-lines-"));
    try {
      for (const f of [
        "src/index.ts",
        "src/a/b.ts",
        "src/x.test.ts",
        "src/testing/Fake.ts",
        "README.md",
      ]) {
        mkdirSync(join(dir, f, ".."), { recursive: true });
        writeFileSync(join(dir, f), "export {};\n");
      }
      expect(adapterFiles(dir).map((f) => f.slice(dir.length + 1))).toEqual([
        "src/a/b.ts",
        "src/index.ts",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

it("the example plugin's adapter (the scaffold's template) is at most 150 lines [H27]", () => {
  const { files, total } = countAdapterLines(join(root, "examples/plugin-httpchat"));
  expect(files.map((f) => f.file)).toEqual(["src/client.ts", "src/index.ts", "src/receive.ts"]);
  expect(total).toBeLessThanOrEqual(150);
});
