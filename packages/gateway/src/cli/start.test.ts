/**
 * [H17] follow-up 2: `herald start` never looks like a silent hang. When every account is stopped
 * at start (credentials rejected) it exits non-zero with the account's error and fix (naming
 * `herald doctor`); with some accounts up it keeps running and prints each stopped account on
 * stderr; with zero channels it refuses before opening anything.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { trackChild } from "@herald/core/testing";
import { QaPlatform } from "@herald/plugin-qa-channel/testing";
import { describe, expect, it, onTestFinished } from "vitest";

const cli = fileURLToPath(new URL("./main.ts", import.meta.url));

function start(config: object, env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), "herald-start-"));
  const file = join(dir, "herald.config.json");
  writeFileSync(file, JSON.stringify({ http: { host: "127.0.0.1", port: 0 }, ...config }));
  const child = trackChild(
    spawn(process.execPath, ["--conditions=herald-source", cli, "start", "-c", file, "--echo"], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  onTestFinished(() => {
    child.kill("SIGKILL");
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once("close", (code) => resolve({ code, stdout, stderr })),
  );
  const running = () =>
    new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      child.stdout.on("data", () => {
        if (stdout.includes("herald gateway running")) resolve({ stdout, stderr });
      });
      void done.then((r) => reject(new Error(`exited ${r.code}: ${r.stderr}`)));
    });
  return { child, done, running, dir };
}

const qa = (baseUrl: string, account: string, tokenSecret: string) => ({
  plugin: "@herald/plugin-qa-channel",
  account,
  config: { baseUrl, tokenSecret },
});

describe("herald start", () => {
  it("exits non-zero with the error and fix when its only account's credentials are rejected", async () => {
    const platform = await QaPlatform.start({ port: 0 });
    onTestFinished(() => platform.close());
    const run = start(
      { channels: [qa(platform.url, "main", "HERALD_QA_TOKEN")] },
      { HERALD_QA_TOKEN: "herald:wrong-secret" },
    );
    const result = await run.done;
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain("herald gateway running");
    expect(result.stderr).toMatch(
      /no account could start[\s\S]*qa\/main stopped: the QA platform rejected the token[\s\S]*check the token in HERALD_QA_TOKEN[\s\S]*herald doctor/,
    );
  });

  it("keeps running with one account up and prints the stopped one's error and fix on stderr", async () => {
    const platform = await QaPlatform.start({ port: 0 });
    onTestFinished(() => platform.close());
    const run = start(
      { channels: [qa(platform.url, "good", "HERALD_QA_TOKEN"), qa(platform.url, "bad", "BAD")] },
      { HERALD_QA_TOKEN: "herald:qa-secret", BAD: "herald:wrong" },
    );
    const { stderr } = await run.running();
    expect(stderr).toMatch(
      /^herald: account qa\/bad stopped: .*check the token in BAD.*herald doctor/m,
    );
    run.child.kill("SIGTERM");
    expect((await run.done).code).toBe(0);
  });

  it("a start refused for a plugin config, a missing secret or console token creates no store", async () => {
    const store = { sqlite: { path: ".herald/state.db" } };
    const refused = [
      // an invalid plugin config
      start(
        { store, channels: [{ plugin: "@herald/plugin-qa-channel", config: { baseUrl: 1 } }] },
        {},
      ),
      // a secret that is not set
      start(
        { store, channels: [qa("http://127.0.0.1:9", "main", "HERALD_NUFIX_UNSET_TOKEN")] },
        {},
      ),
      // a console token that is not set
      start(
        {
          store,
          channels: [qa("http://127.0.0.1:9", "main", "HERALD_QA_TOKEN")],
          console: { tokenEnv: "HERALD_NUFIX_UNSET_CONSOLE" },
        },
        { HERALD_QA_TOKEN: "herald:qa-secret" },
      ),
    ];
    for (const run of refused) {
      const result = await run.done;
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(/HERALD_CONFIG_INVALID/);
      expect(existsSync(join(run.dir, ".herald"))).toBe(false); // no store, no lock
    }
  });

  it("refuses to start with zero channels, naming the fix", async () => {
    const result = await start({ channels: [] }, {}).done;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/channels: no channels[\s\S]*fix: add a channel account/);
  });
});
