import { silentLogger } from "@herald/core";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../config/errors.ts";
import { parseConfig } from "../config/load.ts";
import { createLogger } from "../logger.ts";
import { loadPlugins } from "./loadPlugins.ts";
import { SecretReader } from "./secrets.ts";

describe("secrets", () => {
  it("reads from the environment and names the variable and the config path when it is unset", () => {
    const secrets = new SecretReader({ TELEGRAM_BOT_TOKEN: "123456:ABC-secret" });
    expect(secrets.read("TELEGRAM_BOT_TOKEN", "channels[0].config")).toBe("123456:ABC-secret");
    const error = (() => {
      try {
        secrets.read("MISSING_TOKEN", "channels[1].config");
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues[0]).toMatchObject({
      path: "channels[1].config",
      message: "environment variable MISSING_TOKEN is not set",
      fix: "export MISSING_TOKEN=<value> before starting herald",
    });
  });

  it("redacts every secret read, also inside URLs and log lines", () => {
    const token = "123456:ABC-secret/part";
    const secrets = new SecretReader({ TOKEN: token });
    secrets.read("TOKEN", "x");
    expect(secrets.redact(`POST https://api.telegram.org/bot${token}/sendMessage failed`)).toBe(
      "POST https://api.telegram.org/bot[redacted]/sendMessage failed",
    );
    expect(secrets.redact(`?t=${encodeURIComponent(token)}`)).toBe("?t=[redacted]");
    const lines: string[] = [];
    const logger = createLogger({
      level: "info",
      secrets,
      out: { write: (l: string) => lines.push(l) },
    });
    logger.error(
      { err: new Error(`request to /bot${token}/getMe failed`), token },
      `token ${token}`,
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(token);
    expect(lines[0]).not.toContain("ABC-secret");
    expect(lines[0]).toContain("[redacted]");
  });

  it("redacts the trimmed token when the environment holds it with a trailing newline", () => {
    const token = "123456:ABC-secret_part";
    const secrets = new SecretReader({ TOKEN: `${token}\n` }); // a k8s secret / .env line
    secrets.read("TOKEN", "x");
    const echoed = `proxy said: bad token ${token} at /bot${encodeURIComponent(token)}/getMe`;
    expect(secrets.redact(echoed)).toBe("proxy said: bad token [redacted] at /bot[redacted]/getMe");
  });

  it("trims what it reads; a variable named like an Object member is unset, not a function ([H28] C49)", () => {
    const secrets = new SecretReader({ TOKEN: "  123456:ABC-secret\n" });
    expect(secrets.read("TOKEN", "x")).toBe("123456:ABC-secret");
    for (const name of ["constructor", "toString", "__proto__"])
      expect(() => secrets.read(name, "channels[0].config.tokenEnv")).toThrow(
        `environment variable ${name} is not set`,
      );
  });

  it("a malformed token is a config issue at the setting that names it, never the value ([H28] C49)", async () => {
    const config = parseConfig({
      channels: [{ plugin: "@herald/plugin-telegram", config: { tokenEnv: "TG_TOKEN" } }],
    });
    const error = await loadPlugins(config, {
      logger: silentLogger,
      secrets: new SecretReader({ TG_TOKEN: "Bot 123456:ABC secret" }),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    const [issue] = (error as ConfigError).issues;
    expect(issue).toMatchObject({ path: "channels[0].config.tokenEnv" });
    expect(`${issue?.message} ${issue?.fix}`).toContain("TG_TOKEN");
    expect(`${issue?.message} ${issue?.fix}`).not.toContain("ABC secret");
    // With a trailing newline (echo … > file) the same token loads.
    await expect(
      loadPlugins(config, {
        logger: silentLogger,
        secrets: new SecretReader({ TG_TOKEN: "123456:ABC-secret\n" }),
      }),
    ).resolves.toHaveLength(1);
  });
});
