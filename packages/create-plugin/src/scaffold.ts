/**
 * Creates a plugin folder from the template: the example plugin's files under the new names,
 * and the files only a standalone package needs (`package.json`, `tsconfig.json`, the Vitest
 * config and setup, a README).
 *
 * @module
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { CreatePluginError } from "./errors.ts";
import { type PluginNames, pluginNames } from "./names.ts";
import type { Template } from "./template.ts";

/** The example's names, most specific first, and what each becomes. */
function renamer(names: PluginNames): (text: string) => string {
  const pairs: Array<[string, string]> = [
    ["@herald/example-plugin-httpchat", names.packageName],
    ["HttpChat", names.pascal],
    ["httpChat", names.camel],
    ["HTTPCHAT", names.upper],
    ["httpchat", names.id],
    ["HTTP chat", names.pascal],
  ];
  return (text) => pairs.reduce((t, [from, to]) => t.replaceAll(from, to), text);
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** The files of a new plugin, by path (pure: nothing is written). */
export function renderPlugin(names: PluginNames, template: Template): Record<string, string> {
  const rename = renamer(names);
  const files: Record<string, string> = {};
  for (const [path, text] of Object.entries(template.files)) files[rename(path)] = rename(text);
  const v = template.versions;
  const entry = (name: string) => ({
    types: `./dist/${name}.d.mts`,
    default: `./dist/${name}.mjs`,
  });
  files["package.json"] = json({
    name: names.packageName,
    version: "0.1.0",
    description: `A herald channel plugin for ${names.pascal}.`,
    type: "module",
    engines: { node: ">=22.18" },
    sideEffects: false,
    files: ["dist"],
    exports: {
      ".": entry("index"),
      "./testing": entry("testing/index"),
      "./package.json": "./package.json",
    },
    scripts: {
      build: "tsdown",
      typecheck: "tsc -p tsconfig.json",
      test: "vitest run",
      "test:contract": "vitest run src/contract.test.ts",
    },
    peerDependencies: { "@herald/plugin-sdk": `^${v["@herald/plugin-sdk"]}` },
    devDependencies: {
      "@herald/plugin-qa-channel": `^${v["@herald/plugin-qa-channel"]}`,
      "@herald/plugin-sdk": `^${v["@herald/plugin-sdk"]}`,
      "@types/node": v["@types/node"],
      tsdown: v.tsdown,
      typescript: v.typescript,
      vitest: v.vitest,
    },
  });
  files["tsconfig.json"] = json({
    compilerOptions: {
      target: "es2024",
      lib: ["es2024", "ESNext.Disposable"],
      module: "nodenext",
      moduleResolution: "nodenext",
      types: ["node"],
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      verbatimModuleSyntax: true,
      erasableSyntaxOnly: true,
      allowImportingTsExtensions: true,
      noEmit: true,
      skipLibCheck: true,
    },
    include: ["src", "*.config.ts", "vitest.setup.ts"],
  });
  files["vitest.config.ts"] =
    `// Time limits grow with the machine's load (HERALD_TEST_TIME_SCALE), as in herald's own suite.
import { scaledMs } from "@herald/plugin-sdk/testing";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    testTimeout: scaledMs(30_000),
    hookTimeout: scaledMs(30_000),
    setupFiles: ["./vitest.setup.ts"],
  },
});
`;
  files["vitest.setup.ts"] =
    `// After each test file: end every child process and fake server it left running (also after a
// timeout), so a crash test's children never outlive Vitest.
import { endTracked, scaledMs } from "@herald/plugin-sdk/testing";
import { afterAll } from "vitest";

afterAll(() => endTracked(scaledMs(5_000)));
`;
  files[".gitignore"] = "node_modules\ndist\n";
  files["README.md"] = readme(names, rename(template.apiSection));
  return files;
}

function readme(n: PluginNames, apiSection: string): string {
  const fake = `src/testing/Fake${n.pascal}.ts`;
  return `# ${n.packageName}

A [herald](https://github.com/herald-dev/herald#readme) channel plugin, created with
\`npm create @herald/plugin\`. It starts as a complete plugin for the small chat API below
(a copy of herald's example plugin under your names), with a fake of that API on 127.0.0.1, and
passes herald's contract suite and mutant catalog as it is.

\`\`\`sh
npm install
npm test               # the contract suite, the mutant catalog and the plugin's own tests
npm run typecheck
npm run build          # dist/, what a gateway loads
\`\`\`

## Make it yours

1. Describe your platform's API in \`src/client.ts\` (its message schema, \`readError\`) and change
   the calls in \`src/index.ts\` (send, edit, delete, the reconciler, the identity call).
2. Change \`src/receive.ts\`: \`normalize\` for your platform's events, and the webhook's
   authentication (or a \`pollingReceiver\` if your platform is polled).
3. Make \`${fake}\` answer like your platform (its routes, errors and inbound events), and
   keep \`npm test\` green: the fake is a claim about the platform, so check it against the
   platform's published API description.

The guide: [Writing a channel plugin](https://github.com/herald-dev/herald/blob/main/docs/plugin-authoring.md).

| file                        | holds                                                                 |
| --------------------------- | --------------------------------------------------------------------- |
| \`src/index.ts\`              | the config schema, the adapter (send / edit / delete, reconcile), the plugin with \`createAccount\` |
| \`src/client.ts\`             | the API: message schema, error classes, the HTTP client                |
| \`src/receive.ts\`            | \`normalize\`, \`origin.decode\`, the signed webhook receiver            |
| \`${fake}\` | the fake API                                                            |
| \`src/testing/harness.ts\`    | \`contractHarness\`: the fake and the plugin, for the suite              |
| \`src/contract.test.ts\`      | the contract suite                                                      |
| \`src/mutants.test.ts\`       | the mutant catalog: the suite must catch each planted bug               |

Configure it in a gateway (\`herald.config.json\`):

\`\`\`json
{
  "channels": [
    {
      "plugin": "${n.packageName}",
      "config": {
        "baseUrl": "https://chat.example.com",
        "tokenEnv": "${n.upper}_TOKEN",
        "webhookSecretEnv": "${n.upper}_WEBHOOK_SECRET"
      }
    }
  ]
}
\`\`\`

${apiSection}
`;
}

/** What {@link scaffold} created. */
export type ScaffoldResult = { dir: string; names: PluginNames; files: string[] };

/**
 * Creates the plugin `name` in `dir` (default: `./<folder>`), which must not exist or be empty.
 *
 * @throws CreatePluginError `bad_name` for a name npm or herald refuses, `target_not_empty`
 *   when `dir` holds anything — before anything is written.
 */
export function scaffold(options: {
  name: string;
  template: Template;
  dir?: string;
}): ScaffoldResult {
  const names = pluginNames(options.name);
  const dir = resolve(options.dir ?? names.folder);
  if (existsSync(dir) && readdirSync(dir).length > 0)
    throw new CreatePluginError(
      "target_not_empty",
      `${dir} is not empty: choose a new folder (--dir <folder>) or empty this one; nothing was written`,
    );
  const files = renderPlugin(names, options.template);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return { dir, names, files: Object.keys(files).sort() };
}
