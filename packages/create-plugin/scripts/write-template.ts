/**
 * Writes `dist/template.json` from the example plugin (run by `build` and `prepack`, so the
 * packed package carries the example as it is at that commit).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readTemplateFromRepo } from "../src/template.ts";

const pkg = join(import.meta.dirname, "..");
const template = readTemplateFromRepo(join(pkg, "../.."));
mkdirSync(join(pkg, "dist"), { recursive: true });
writeFileSync(join(pkg, "dist/template.json"), `${JSON.stringify(template)}\n`);
console.log(`template: ${Object.keys(template.files).length} files from the example plugin`);
