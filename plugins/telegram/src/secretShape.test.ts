/**
 * [H28] C49: every secret this channel reads is trimmed (a value ending in a newline, as
 * `echo … > file` writes it, works) and shape-checked at start: a malformed one stops the
 * account with a MalformedSecretError naming the setting and the variable, never the value.
 */
import { createAdapterWithSecrets } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { telegramConfigSchema } from "./config.ts";
import plugin from "./index.ts";

const config = telegramConfigSchema.parse({});
const good: Record<string, string> = {
  TELEGRAM_BOT_TOKEN: "7000001:AAH4fakeTokenForHeraldTests_x9Qz",
};

describe("secrets read at start (C49)", () => {
  it("accepts each secret with a trailing newline (trimmed)", () => {
    const withNewlines = Object.fromEntries(
      Object.entries(good).map(([name, value]) => [name, `${value}\n`]),
    );
    expect(createAdapterWithSecrets(plugin, config, withNewlines).error).toBeUndefined();
  });

  it.each([
    ["TELEGRAM_BOT_TOKEN", "bot7000001:AAH4fakeToken", "tokenEnv"],
    ["TELEGRAM_BOT_TOKEN", "7000001:AAH4 fakeToken", "tokenEnv"],
  ] as Array<[string, string, string]>)(
    "refuses %s = %j, naming the setting %s and never the value",
    (name, value, setting) => {
      const { error } = createAdapterWithSecrets(plugin, config, { ...good, [name]: value });
      expect(error).toMatchObject({ name: "MalformedSecretError", setting, source: name });
      const text = `${(error as Error).message} ${(error as { fix?: string }).fix}`;
      expect(text).toContain(name);
      expect(text).toContain(setting);
      if (value.trim()) expect(text).not.toContain(value.trim());
    },
  );
});
