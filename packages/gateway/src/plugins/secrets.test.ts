import { describe, expect, it } from "vitest";
import { ConfigError } from "../config/errors.ts";
import { createLogger } from "../logger.ts";
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
});
