/**
 * [H28] newcomer follow-up: the console token read from `console.tokenEnv` is trimmed like
 * every secret (`HERALD_CONSOLE_TOKEN="…"$'\n'` signed nobody in: 401 "wrong token") and checked
 * for shape at start, with an error naming the setting and never the token.
 */
import { describe, expect, it } from "vitest";
import { SecretReader } from "../plugins/secrets.ts";
import { ConfigError } from "./errors.ts";
import { gatewayOptionsOf } from "./gatewayOptions.ts";
import { heraldConfigSchema } from "./schema.ts";

const TOKEN = "an-operator-token-0123456789";
const config = heraldConfigSchema.parse({ console: { tokenEnv: "HERALD_CONSOLE_TOKEN" } });
const optionsWith = (value: string) =>
  gatewayOptionsOf(config, new SecretReader({ HERALD_CONSOLE_TOKEN: value }));

describe("console.tokenEnv", () => {
  it("trims the token: a trailing newline or spaces around it are not part of it", () => {
    for (const value of [`${TOKEN}\n`, `  ${TOKEN}\r\n`]) {
      expect(optionsWith(value).console?.token, JSON.stringify(value)).toBe(TOKEN);
    }
  });

  it("refuses a token with whitespace inside or too short, naming the setting, not the token", () => {
    for (const value of [`${TOKEN}\n${TOKEN}`, "an-operator token-0123456789", "short\n"]) {
      let error: unknown;
      try {
        optionsWith(value);
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(value)).toBeInstanceOf(ConfigError);
      const issue = (error as ConfigError).issues[0];
      expect(issue?.path).toBe("console.tokenEnv");
      expect(issue?.message).toMatch(/^HERALD_CONSOLE_TOKEN: the console token /);
      expect(String((error as Error).message)).not.toContain("0123456789");
    }
  });
});
