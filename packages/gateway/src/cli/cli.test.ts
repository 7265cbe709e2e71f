/**
 * The `herald` CLI as an operator meets it, in a real child process: errors without stacks
 * (`--verbose` adds them), a pipe closed early (`| head`) ends quietly, `herald start` without a
 * handler refuses to start and names the fix (or runs an explicit, printed echo mode), and the
 * missing QA token's fix states its value.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SqliteStateStore } from "@herald/core";
import { newIntent, outboundMessage, trackChild } from "@herald/core/testing";
import { QaPlatform } from "@herald/plugin-qa-channel/testing";
import { describe, expect, it, onTestFinished } from "vitest";

const cli = fileURLToPath(new URL("./main.ts", import.meta.url));
const tmp = () => mkdtempSync(join(tmpdir(), "herald-cli-"));

function run(args: string[], env: Record<string, string> = {}) {
  const child = trackChild(
    spawn(process.execPath, ["--conditions=herald-source", cli, ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
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
  return { child, done };
}

function writeConfig(dir: string, config: unknown): string {
  const file = join(dir, "herald.config.json");
  writeFileSync(file, JSON.stringify(config));
  return file;
}

const STACK_LINE = /\n\s+at .+:\d+:\d+/;

describe("herald CLI", () => {
  it("prints errors without a stack trace; --verbose adds it", async () => {
    const file = join(tmp(), "herald.config.json");
    writeFileSync(file, "{ not json");
    const plain = await run(["queue", "ls", "-c", file]).done;
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(
      /^herald: .*herald\.config\.json: 1 problem\(s\)[\s\S]*not valid JSON/,
    );
    expect(plain.stderr).not.toMatch(STACK_LINE);
    const verbose = await run(["queue", "ls", "-c", file, "--verbose"]).done;
    expect(verbose.code).toBe(1);
    expect(verbose.stderr).toMatch(STACK_LINE);
  });

  it("ends quietly when the reader of its output goes away (herald queue ls | head)", async () => {
    const dir = tmp();
    const store = new SqliteStateStore({ path: join(dir, "state.db") });
    await store.enqueueIntents(
      Array.from({ length: 800 }, (_, n) => newIntent(outboundMessage(`message ${n}`))),
    );
    await store.close();
    const file = writeConfig(dir, { store: { sqlite: { path: "state.db" } } });
    const { child, done } = run(["queue", "ls", "-c", file, "-n", "800"]);
    child.stdout.once("data", () => child.stdout.destroy()); // like `head -1`
    const result = await done;
    expect(result.stderr).not.toMatch(/EPIPE|Error/);
    expect(result.code).toBe(0);
  });

  it("herald start without a handler refuses to start and names the fix", async () => {
    const file = writeConfig(tmp(), { channels: [] });
    const result = await run(["start", "-c", file]).done;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /handler: no bot handler[\s\S]*fix: add "handler": "\.\/bot\.mjs"[\s\S]*herald start --echo/,
    );
  });

  it("herald start --echo runs an explicit, printed echo mode and prints its HTTP address", async () => {
    const platform = await QaPlatform.start({ port: 0 });
    onTestFinished(() => platform.close());
    const file = writeConfig(tmp(), {
      channels: [{ plugin: "@herald/plugin-qa-channel", config: { baseUrl: platform.url } }],
      http: { host: "127.0.0.1", port: 0 },
    });
    const { child, done } = run(["start", "-c", file, "--echo"], {
      HERALD_QA_TOKEN: "herald:qa-secret",
    });
    onTestFinished(() => {
      child.kill("SIGKILL");
    });
    const output = await new Promise<string>((resolve, reject) => {
      let text = "";
      child.stdout.on("data", (d) => {
        text += d;
        if (text.includes("herald gateway running")) resolve(text);
      });
      void done.then((r) => reject(new Error(`exited ${r.code}: ${r.stderr}`)));
    });
    expect(output).toMatch(/echo mode \(--echo\): every message is answered with its own text/);
    expect(output).toMatch(/HTTP server on http:\/\/127\.0\.0\.1:\d+ \(\/healthz, \/metrics/);
    child.kill("SIGTERM");
    await done;
  });

  it("names the QA token's value when it is asked for", async () => {
    const file = writeConfig(tmp(), {
      channels: [
        { plugin: "@herald/plugin-qa-channel", config: { baseUrl: "http://127.0.0.1:1" } },
      ],
    });
    mkdirSync(join(dirname(file), ".herald")); // readers need an existing store
    await new SqliteStateStore({ path: join(dirname(file), ".herald", "state.db") }).close();
    const result = await run(["recover", "-c", file], { HERALD_QA_TOKEN: "" }).done;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /channels\[0\]\.config\.tokenSecret: environment variable HERALD_QA_TOKEN is not set\n\s+fix: export HERALD_QA_TOKEN=herald:qa-secret before starting/,
    );
  });
});
