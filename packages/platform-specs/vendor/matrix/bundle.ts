/**
 * Regenerates `client-server.bundled.json` from the vendored matrix-spec YAML: each module's
 * OpenAPI document with the `$ref`s to other files pulled in (json-schema-ref-parser's bundle),
 * and the module's base path; and the spec's standard error bodies (`definitions/errors/`),
 * which any endpoint may answer. Run from the repository root:
 *
 *     node packages/platform-specs/vendor/matrix/bundle.ts
 */
import { readdir, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import $RefParser from "@apidevtools/json-schema-ref-parser";
import YAML from "yaml";

type Json = Record<string, unknown>;

const dir = fileURLToPath(new URL("./data/api/client-server/", import.meta.url));
const files = (await readdir(dir)).filter((f) => f.endsWith(".yaml")).sort();
const options = {
  // matrix-spec's YAML has flow maps indented less than YAML 1.2 strictly allows (its own
  // tooling accepts them); `yaml` in non-strict mode reads them as intended.
  parse: {
    yaml: {
      order: 200,
      canParse: [".yaml", ".yml"],
      parse: (f: { data: unknown }) => YAML.parse(String(f.data), { strict: false }),
    },
  },
};
const documents: Array<{ file: string; basePath: string; doc: Json }> = [];
for (const file of files) {
  const doc = (await $RefParser.bundle(`${dir}${file}`, options)) as Json;
  const servers = doc.servers as
    | Array<{ variables?: { basePath?: { default?: string } } }>
    | undefined;
  const basePath = servers?.[0]?.variables?.basePath?.default ?? "/_matrix/client/v3";
  documents.push({ file, basePath, doc });
}
const errors = {
  error: await $RefParser.dereference(`${dir}definitions/errors/error.yaml`, options),
  rateLimited: await $RefParser.dereference(`${dir}definitions/errors/rate_limited.yaml`, options),
};
await writeFile(
  new URL("./client-server.bundled.json", import.meta.url),
  JSON.stringify({ documents, errors }),
);
console.log(`bundled ${documents.length} documents`);
