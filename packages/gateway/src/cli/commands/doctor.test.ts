import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_QA_BOT, QaPlatform } from "@herald/plugin-qa-channel/testing";
import { describe, expect, it } from "vitest";
import { doctor } from "./doctor.ts";

function sink() {
  const out = { text: "", write: (s: string) => (out.text += s) };
  return out;
}

describe("herald doctor", () => {
  it("names each problem of a broken config, with the fix, and fails", async () => {
    const dir = mkdtempSync(join(tmpdir(), "herald-doctor-"));
    const file = join(dir, "herald.config.json");
    writeFileSync(
      file,
      JSON.stringify({
        store: { sqlite: { path: "state.db" } },
        channels: [
          { plugin: "@herald/plugin-does-not-exist" },
          { plugin: "@herald/plugin-qa-channel", config: { baseUrl: "not a url" } },
        ],
      }),
    );
    const out = sink();
    const problems = await doctor(file, out);
    expect(problems).toBe(2);
    // Not a problem, but it carries a fix: never a ✓ beside a "fix:" ([H28] C51).
    expect(out.text).toMatch(/^! store: no store exists at .*state\.db \(nothing created\)/m);
    expect(out.text).not.toMatch(/^✓ .*fix:/m);
    expect(out.text).toMatch(
      /✗ channel @herald\/plugin-does-not-exist \(main\): channels\[0\]\.plugin: @herald\/plugin-does-not-exist is not installed: looked in [^\n]*fix: install it next to the config: cd \S+ && npm install @herald\/plugin-does-not-exist \(or: pnpm add @herald\/plugin-does-not-exist\)/,
    );
    expect(out.text).toMatch(
      /✗ channel @herald\/plugin-qa-channel \(main\): channels\[1\]\.config\.baseUrl: .*fix: give channels\[1\]\.config\.baseUrl a valid url/,
    );
    expect(out.text).toMatch(/herald doctor: 2 problem\(s\)/);
  });

  it("reports an invalid config file with the field path and the fix", async () => {
    const dir = mkdtempSync(join(tmpdir(), "herald-doctor-"));
    const file = join(dir, "herald.config.json");
    writeFileSync(file, JSON.stringify({ store: { postgres: { url: "postgres://x" } } }));
    const out = sink();
    expect(await doctor(file, out)).toBeGreaterThan(0);
    expect(out.text).toMatch(/✗ config store: [^\n]*fix: use \{ "sqlite"/);
  });

  it("passes a sound config whose platform answers and whose secrets are set", async () => {
    const platform = await QaPlatform.start();
    try {
      const dir = mkdtempSync(join(tmpdir(), "herald-doctor-"));
      const file = join(dir, "herald.config.json");
      writeFileSync(
        file,
        JSON.stringify({
          channels: [{ plugin: "@herald/plugin-qa-channel", config: { baseUrl: platform.url } }],
        }),
      );
      process.env.HERALD_QA_TOKEN = DEFAULT_QA_BOT.token;
      const out = sink();
      expect(await doctor(file, out)).toBe(0);
      expect(out.text).toMatch(/✓ channel @herald\/plugin-qa-channel \(main\)/);
      // No store before the first herald start: not a problem, a line to read (!).
      expect(out.text).toContain("herald doctor: no problems; read the 1 line(s) marked !");
      expect(out.text).not.toContain(DEFAULT_QA_BOT.token);
    } finally {
      await platform.close();
    }
  });
});
