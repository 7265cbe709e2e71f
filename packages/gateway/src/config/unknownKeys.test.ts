/**
 * [H17] follow-up: a typo anywhere in the config, including inside a plugin's `config` and its
 * nested objects, is an error at the field's path with the closest known key as the fix; union
 * errors never leak `'undefined'`; a missing secret is one issue with one fix; a plugin-name typo
 * names the right package.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@herald/core";
import qa from "@herald/plugin-qa-channel";
import telegram from "@herald/plugin-telegram";
import { describe, expect, it } from "vitest";
import { importHandler } from "../cli/commands/start.ts";
import { loadPlugins } from "../plugins/loadPlugins.ts";
import { SecretReader } from "../plugins/secrets.ts";
import { ConfigError } from "./errors.ts";
import { parseConfig } from "./load.ts";

const preloaded = {
  "@herald/plugin-telegram": telegram as never,
  "@herald/plugin-qa-channel": qa as never,
};
const env = { TELEGRAM_BOT_TOKEN: "1:x", HERALD_QA_TOKEN: "herald:qa-secret" };

async function pluginError(plugin: string, config: unknown, secrets: Record<string, string> = env) {
  const error = await loadPlugins(parseConfig({ channels: [{ plugin, config }] }), {
    logger: silentLogger,
    secrets: new SecretReader(secrets),
    preloaded,
  }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}
const fixes = (e: ConfigError) => e.issues.map((i) => [i.path, i.fix]);

describe("unknown keys in a plugin's config", () => {
  it("telegram: top level and nested, each at its path with did-you-mean", async () => {
    const error = await pluginError("@herald/plugin-telegram", {
      apiRot: "http://127.0.0.1:1",
      tokn: "X",
      receive: { pollTimeoutSecond: 5 },
      rateLimits: { perChat: 1 },
    });
    expect(fixes(error)).toEqual(
      expect.arrayContaining([
        ["channels[0].config.apiRot", 'rename "apiRot" to "apiRoot"'],
        [
          "channels[0].config.tokn",
          expect.stringMatching(/^remove "tokn" \(known fields: .*tokenEnv/),
        ],
        [
          "channels[0].config.receive.pollTimeoutSecond",
          'rename "pollTimeoutSecond" to "pollTimeoutSeconds"',
        ],
        ["channels[0].config.rateLimits.perChat", 'rename "perChat" to "perChatPerSecond"'],
      ]),
    );
    expect(error.message).toContain('unknown field "apiRot" (did you mean "apiRoot"?)');
  });

  it("webhook receive block and qa-channel nested editRate refuse typos too", async () => {
    const tg = await pluginError("@herald/plugin-telegram", {
      receive: { mode: "webhook", secretTokenEnv: "S", publicUrll: "https://x" },
    });
    expect(fixes(tg)).toContainEqual([
      "channels[0].config.receive.publicUrll",
      'rename "publicUrll" to "publicUrl"',
    ]);
    const q = await pluginError("@herald/plugin-qa-channel", {
      baseUrl: "http://127.0.0.1:1",
      baseURL: "x",
      editRate: { limt: 1, intervalMs: 3, limit: 2 },
    });
    expect(fixes(q)).toEqual(
      expect.arrayContaining([
        ["channels[0].config.baseURL", expect.stringMatching(/^remove "baseURL"|rename/)],
        ["channels[0].config.editRate.limt", expect.stringMatching(/^remove "limt"/)],
      ]),
    );
  });

  it("the receive mode error lists the modes without 'undefined' and with grammar", async () => {
    const error = await pluginError("@herald/plugin-telegram", { receive: { mode: "poll" } });
    expect(error.message).not.toMatch(/undefined/);
    expect(error.message).toMatch(/receive\.mode: .*"polling" \| "webhook"/);
    const notObject = await pluginError("@herald/plugin-telegram", { receive: 5 });
    expect(fixes(notObject)).toContainEqual([
      "channels[0].config.receive",
      "give channels[0].config.receive an object value",
    ]);
  });

  it("a missing secret is one issue with one fix (no nested 'config: 1 problem(s)')", async () => {
    const error = await pluginError("@herald/plugin-telegram", {}, {});
    expect(error.issues).toHaveLength(1);
    expect(error.message).not.toMatch(/config: config:|problem\(s\)[\s\S]*problem\(s\)/);
    expect(error.message.match(/fix:/g)).toHaveLength(1);
    expect(error.issues[0]?.path).toBe("channels[0].config.tokenEnv");
  });

  it("a plugin-name typo suggests the right package instead of npm install of the typo", async () => {
    const error = await loadPlugins(
      parseConfig({ channels: [{ plugin: "@herald/plugin-telegrm" }] }),
      {
        logger: silentLogger,
        secrets: new SecretReader(env),
      },
    ).catch((e: ConfigError) => e);
    expect((error as ConfigError).issues[0]?.fix).toMatch(
      /did you mean "@herald\/plugin-telegram"/,
    );
    expect((error as ConfigError).message).not.toContain("npm install @herald/plugin-telegrm");
  });
});

describe("unknown keys in the gateway config", () => {
  it("store: a typo of sqlite is named, with the fix", () => {
    const error = (() => {
      try {
        parseConfig({ store: { sqlit: { path: "x.db" } } });
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(error && fixes(error)).toEqual([["store.sqlit", 'rename "sqlit" to "sqlite"']]);
  });

  it("a section's key at the top level is moved into its section, not removed ([H28] C52)", () => {
    // README said `{ "sqlite": { "path": ":memory:" } }`: the fix was "remove sqlite".
    const error = (() => {
      try {
        parseConfig({ sqlite: { path: ":memory:" }, port: 9000, constructor: 1 });
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(error && fixes(error)).toEqual(
      expect.arrayContaining([
        ["sqlite", 'move it: "store": { "sqlite": … }'],
        ["port", 'move it: "http": { "port": … }'],
      ]),
    );
    expect(error?.issues.find((i) => i.path === "constructor")?.fix).toMatch(
      /^remove "constructor"/,
    );
  });

  it("http and nested sqlite options", () => {
    const error = (() => {
      try {
        parseConfig({ http: { prot: 1 }, store: { sqlite: { pth: "x" } } });
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(error && fixes(error)).toEqual(
      expect.arrayContaining([
        ["http.prot", 'rename "prot" to "port"'],
        ["store.sqlite.pth", 'rename "pth" to "path"'],
      ]),
    );
  });
});

it("a missing handler file names the resolved path and that paths are relative to the config", async () => {
  const dir = mkdtempSync(join(tmpdir(), "herald-handler-"));
  writeFileSync(join(dir, "herald.config.json"), "{}");
  const error = await importHandler(dir, "./bot.mjs").catch((e: ConfigError) => e);
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).message).toContain(join(dir, "bot.mjs"));
  expect((error as ConfigError).issues[0]?.fix).toMatch(/relative to the config file/);
});
