import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "./errors.ts";
import { loadConfig, parseConfig } from "./load.ts";

const dir = () => mkdtempSync(join(tmpdir(), "herald-config-"));

describe("config", () => {
  it("fills defaults for an empty config: SQLite under .herald/, 127.0.0.1:8787", () => {
    expect(parseConfig({})).toMatchObject({
      store: { sqlite: { path: ".herald/state.db", synchronous: "FULL" } },
      channels: [],
      http: { host: "127.0.0.1", port: 8787 },
    });
  });

  it("names the field path and the fix for each problem", () => {
    const error = (() => {
      try {
        parseConfig({
          store: { postgres: { url: "postgres://u:secret@h/db" } },
          channels: [{ plugin: "@herald/plugin-qa-channel", account: "a b", tokn: 1 }],
          http: { port: 70_000 },
        });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    const issues = (error as ConfigError).issues;
    const paths = issues.map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining(["store", "channels[0].account", "channels[0].tokn", "http.port"]),
    );
    expect(issues.find((i) => i.path === "store")?.fix).toMatch(/urlEnv/);
    expect(issues.find((i) => i.path === "channels[0].tokn")?.fix).toMatch(/remove "tokn"/);
    expect((error as Error).message).not.toContain("secret");
  });

  it("every issue names a fix, also inside a plugin's config (discriminators list their options)", async () => {
    const error = (() => {
      try {
        parseConfig({ http: { port: "80", host: 1 }, log: { level: "loud" }, handler: "" });
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(error?.issues.map((i) => [i.path, i.fix])).toEqual(
      expect.arrayContaining([
        ["http.port", "give http.port a number value"],
        ["http.host", "give http.host a string value"],
        ["log.level", expect.stringMatching(/^set log.level to one of "fatal" \| "error"/)],
        ["handler", "give handler a value ≥ 1 characters"],
      ]),
    );
    expect(error?.issues.every((i) => i.fix)).toBe(true);
    const { loadPlugins } = await import("../plugins/loadPlugins.ts");
    const { SecretReader } = await import("../plugins/secrets.ts");
    const { silentLogger } = await import("@herald/core");
    const qa = (await import("@herald/plugin-qa-channel")).default;
    const bad = parseConfig({
      channels: [
        {
          plugin: "@herald/plugin-qa-channel",
          config: { baseUrl: "http://127.0.0.1:1", delivery: "push" },
        },
      ],
    });
    await expect(
      loadPlugins(bad, {
        logger: silentLogger,
        secrets: new SecretReader({ HERALD_QA_TOKEN: "herald:qa-secret" }),
        preloaded: { "@herald/plugin-qa-channel": qa as never },
      }),
    ).rejects.toThrow(
      /channels\[0\]\.config\.delivery: .*\n\s+fix: set channels\[0\]\.config\.delivery to one of "idempotent"/,
    );
  });

  it("plugin errors name the fix too: not a plugin, adapter refused the config", async () => {
    const { loadPlugins } = await import("../plugins/loadPlugins.ts");
    const { SecretReader } = await import("../plugins/secrets.ts");
    const { silentLogger } = await import("@herald/core");
    const qa = (await import("@herald/plugin-qa-channel")).default;
    const config = parseConfig({
      channels: [
        { plugin: "not-a-plugin" },
        { plugin: "@herald/plugin-qa-channel", config: { baseUrl: "http://127.0.0.1:1" } },
      ],
    });
    const error = await loadPlugins(config, {
      logger: silentLogger,
      secrets: new SecretReader({ HERALD_QA_TOKEN: "no-colon-token" }),
      preloaded: { "not-a-plugin": {} as never, "@herald/plugin-qa-channel": qa as never },
    }).catch((e: ConfigError) => e);
    expect(error).toBeInstanceOf(ConfigError);
    const issues = (error as ConfigError).issues;
    expect(issues.map((i) => i.path)).toEqual([
      "channels[0].plugin",
      "channels[1].config.tokenSecret",
    ]);
    expect(issues.every((i) => i.fix)).toBe(true);
  });

  it("reports a missing file and invalid JSON with the fix", async () => {
    const d = dir();
    await expect(loadConfig(undefined, d)).rejects.toThrow(
      /config file not found[\s\S]*fix: create herald.config.json/,
    );
    writeFileSync(join(d, "herald.config.json"), "{ nope");
    await expect(loadConfig(undefined, d)).rejects.toThrow(/not valid JSON/);
  });

  it("reports a plugin's config issues in the same run as a top-level issue ([H28] getting-started §4)", async () => {
    const d = dir();
    writeFileSync(
      join(d, "herald.config.json"),
      JSON.stringify({
        store: { sqlit: { path: "x.db" } },
        channels: [
          {
            plugin: "@herald/plugin-telegram",
            config: { apiRot: "http://127.0.0.1:1", receive: { mode: "pull" } },
          },
        ],
      }),
    );
    const error = await loadConfig(undefined, d).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => i.path)).toEqual([
      "store.sqlit",
      "channels[0].config.receive.mode",
      "channels[0].config.apiRot",
    ]);
  });

  it("loads a .mjs config through dynamic import", async () => {
    const d = dir();
    writeFileSync(join(d, "herald.config.mjs"), "export default { http: { port: 9999 } };");
    const loaded = await loadConfig(undefined, d);
    expect(loaded.config.http.port).toBe(9999);
    expect(loaded.dir).toBe(d);
  });
});
