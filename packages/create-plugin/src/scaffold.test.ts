// The scaffold made from the example plugin: every example name replaced, a standalone package
// (its own package.json, tsconfig and Vitest config), refusals before anything is written, and
// the CLI as `npm create @herald/plugin` runs it.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { CreatePluginError } from "./errors.ts";
import { pluginNames } from "./names.ts";
import { renderPlugin, scaffold } from "./scaffold.ts";
import { loadTemplate, TEMPLATE_DEPENDENCIES } from "./template.ts";

const run = promisify(execFile);
const pkg = join(import.meta.dirname, "..");
const root = join(pkg, "../..");
const work = mkdtempSync(join(pkg, ".scaffold-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const template = loadTemplate();

describe("renderPlugin", () => {
  const files = renderPlugin(pluginNames("@me/herald-plugin-acme-chat"), template);

  it("carries every file of the example under the new names, none of the old ones left", () => {
    expect(Object.keys(files)).toEqual(
      expect.arrayContaining([
        "src/index.ts",
        "src/client.ts",
        "src/receive.ts",
        "src/testing/FakeAcmeChat.ts",
        "src/testing/harness.ts",
        "src/contract.test.ts",
        "src/mutants.test.ts",
        "package.json",
        "tsconfig.json",
        "vitest.config.ts",
        "vitest.setup.ts",
        "README.md",
      ]),
    );
    for (const [path, text] of Object.entries(files))
      expect(`${path}\n${text}`, path).not.toMatch(/httpchat|HTTP chat|example-plugin/i);
    expect(files["src/client.ts"]).toContain('export const ACME_CHAT = "acme-chat";');
    expect(files["src/index.ts"]).toContain("export function createAcmeChatAdapter(");
  });

  it("depends on the published herald packages at this release's versions", () => {
    const manifest = JSON.parse(files["package.json"] ?? "{}");
    const sdk = JSON.parse(readFileSync(join(root, "packages/plugin-sdk/package.json"), "utf8"));
    expect(manifest.name).toBe("@me/herald-plugin-acme-chat");
    expect(manifest.peerDependencies).toEqual({ "@herald/plugin-sdk": `^${sdk.version}` });
    expect(Object.keys(manifest.devDependencies).sort()).toEqual([...TEMPLATE_DEPENDENCIES].sort());
    expect(JSON.stringify(manifest)).not.toContain("workspace:");
  });

  it("gives the README the API the fake implements, from the example's README", () => {
    expect(files["README.md"]).toContain("## The API");
    expect(files["README.md"]).toContain("`POST /v1/chats/:chat/messages`");
  });
});

describe("scaffold", () => {
  it("refuses a folder that is not empty, writing nothing", () => {
    const dir = join(work, "taken");
    mkdirSync(dir);
    writeFileSync(join(dir, "notes.txt"), "mine");
    expect(() => scaffold({ name: "herald-plugin-acme", dir, template })).toThrow(
      expect.objectContaining({
        problem: "target_not_empty",
        code: "HERALD_CREATE_TARGET_NOT_EMPTY",
      }),
    );
    expect(readdirSync(dir)).toEqual(["notes.txt"]);
  });

  it("refuses a bad name before touching the disk", () => {
    const dir = join(work, "never");
    expect(() => scaffold({ name: "Bad Name", dir, template })).toThrow(CreatePluginError);
    expect(() => readdirSync(dir)).toThrow(/ENOENT/);
  });
});

describe("the CLI (npm create @herald/plugin)", () => {
  const cli = join(pkg, "src/cli.ts");

  it("creates the plugin in the folder named after it and prints the next commands", async () => {
    const { stdout } = await run(process.execPath, [cli, "herald-plugin-zulip"], {
      cwd: work,
      env: { ...process.env, npm_config_user_agent: "pnpm/10.34.9 npm/? node/v24" },
    });
    expect(stdout).toMatch(
      /Created herald-plugin-zulip \(plugin id "zulip"\) in herald-plugin-zulip/,
    );
    expect(stdout).toMatch(/pnpm install\n\s+pnpm test/);
    expect(readdirSync(join(work, "herald-plugin-zulip/src/testing")).sort()).toEqual([
      "FakeZulip.ts",
      "harness.ts",
      "index.ts",
    ]);
  });

  it("exits 1 with the reason for a bad name, a non-empty folder or no name", async () => {
    const fail = (args: string[]) =>
      run(process.execPath, [cli, ...args], { cwd: work }).then(
        () => assert.fail(`exit 0 for ${args.join(" ")}`),
        (e: { code: number; stderr: string }) => e,
      );
    expect(await fail(["Not_A_Name"])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/create-plugin: "Not_A_Name" is not an npm package name/),
    });
    expect(await fail(["herald-plugin-zulip"])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/herald-plugin-zulip is not empty/),
    });
    expect(await fail([])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /give exactly one plugin name\nusage: npm create @herald\/plugin/,
      ),
    });
  });
});
