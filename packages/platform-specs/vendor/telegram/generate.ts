/**
 * Regenerates `bot-api.schema.json`: JSON Schema of the Bot API generated from the TypeScript
 * types grammY ships (`@grammyjs/types`, the version in this package's devDependencies) by
 * typescript-json-schema, which lets the TypeScript checker resolve the per-method argument and
 * result types (`entry.ts`). Objects stay open: grammY's types build messages from intersections
 * and `Omit<>`s, which closed objects would reject field by field. Descriptions are dropped to
 * keep the file small; the per-method schemas are lifted to `methods.<name>.{params,result}`
 * (typescript-json-schema names the mapped type's definition by its whole text, ~100 kB, which
 * made every `$ref` into it slow). Run from the repository root:
 *
 *     node packages/platform-specs/vendor/telegram/generate.ts
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as TJS from "typescript-json-schema";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const program = TJS.programFromConfig(here("./tsconfig.generate.json"));
const schema = TJS.generateSchema(program, "TelegramBotApi", {
  required: true,
  strictNullChecks: true,
  ignoreErrors: true,
});
if (!schema) throw new Error("typescript-json-schema produced no schema");

function strip(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strip);
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "description") continue;
    // Property maps keep every key (a property may be named "description").
    out[k] = k === "properties" || k === "definitions" ? stripEach(v) : strip(v);
  }
  return out;
}
function stripEach(map: unknown): unknown {
  return Object.fromEntries(Object.entries(map as object).map(([k, v]) => [k, strip(v)]));
}

type Node = Record<string, unknown>;
const root = strip(schema) as Node;
const definitions = root.definitions as Record<string, Node>;
const ref = ((root.properties as Node).methods as Node).$ref as string;
const key = decodeURIComponent(ref.replace("#/definitions/", ""));
const methodsDefinition = definitions[key] as { properties: Record<string, Node> };
delete definitions[key];
const methods = Object.fromEntries(
  Object.entries(methodsDefinition.properties).map(([name, m]) => [name, m.properties]),
);
const error = (root.properties as Node).error;

const version = JSON.parse(
  readFileSync(here("../../node_modules/@grammyjs/types/package.json"), "utf8"),
).version as string;
writeFileSync(
  here("./bot-api.schema.json"),
  `${JSON.stringify({
    $comment: `generated from @grammyjs/types ${version} by generate.ts`,
    methods,
    error,
    definitions,
  })}\n`,
);
console.log(`@grammyjs/types ${version}: bot-api.schema.json written`);
