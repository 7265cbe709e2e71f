/**
 * [H28] C46: `herald start` finds a plugin installed next to the config (the bot's own
 * node_modules), then in the current folder — not only where the gateway package can see it,
 * which worked only while npm hoisted everything. When neither has it, the error names the
 * package, every place looked, and the install command.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DEFAULT_QA_BOT, QaPlatform } from "@herald/plugin-qa-channel/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { spawnCli } from "../testing/cliProcess.ts";

/** Outside every node_modules the gateway's own resolution sees. */
const PLUGIN = "@herald-fixture/qa-next-to-config";
const qaSource = pathToFileURL(
  fileURLToPath(new URL("../../../../plugins/qa-channel/src/index.ts", import.meta.url)),
).href;

/** Installs the fixture plugin (the QA channel under another name) into `dir/node_modules`. */
function installPlugin(dir: string): void {
  const pkg = join(dir, "node_modules", PLUGIN);
  mkdirSync(pkg, { recursive: true });
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({ name: PLUGIN, type: "module", exports: { ".": "./index.mjs" } }),
  );
  writeFileSync(join(pkg, "index.mjs"), `export { default } from ${JSON.stringify(qaSource)};\n`);
}

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function setup(where: "config" | "cwd" | "nowhere") {
  const platform = await QaPlatform.start({ port: 0 });
  onTestFinished(() => platform.close());
  const configDir = tempDir("herald-c46-config-");
  const cwd = tempDir("herald-c46-cwd-");
  if (where === "config") installPlugin(configDir);
  if (where === "cwd") installPlugin(cwd);
  const file = join(configDir, "herald.config.json");
  writeFileSync(
    file,
    JSON.stringify({
      store: { sqlite: { path: ":memory:" } },
      http: { host: "127.0.0.1", port: 0 },
      log: { level: "warn" },
      channels: [{ plugin: PLUGIN, config: { baseUrl: platform.url } }],
    }),
  );
  const run = spawnCli(["start", "--echo", "-c", file], {
    cwd,
    env: { ...process.env, HERALD_QA_TOKEN: DEFAULT_QA_BOT.token },
  });
  onTestFinished(() => {
    run.child.kill("SIGKILL");
  });
  return { run, configDir, cwd };
}

describe("herald start resolves plugins from the config's folder, then the current one (C46)", () => {
  it("starts with the plugin installed next to the config (run from another folder)", {
    timeout: 60_000,
  }, async () => {
    const { run } = await setup("config");
    expect(await run.running()).toMatch(/^http:\/\/127\.0\.0\.1:/);
  });

  it("starts with the plugin installed in the current folder", { timeout: 60_000 }, async () => {
    const { run } = await setup("cwd");
    expect(await run.running()).toMatch(/^http:\/\/127\.0\.0\.1:/);
  });

  it("names the package, where it looked and the install command when it is nowhere", {
    timeout: 60_000,
  }, async () => {
    const { run, configDir, cwd } = await setup("nowhere");
    const { code, stderr } = await run.done;
    expect(code).toBe(1);
    expect(stderr).toContain(`${PLUGIN} is not installed: looked in ${configDir}, then ${cwd}`);
    expect(stderr).toContain(
      `fix: install it next to the config: cd ${configDir} && npm install ${PLUGIN}`,
    );
    expect(stderr).not.toMatch(/^\s+at /m); // no stack
  });
});
