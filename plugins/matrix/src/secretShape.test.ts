/**
 * [H28] C49: every secret this channel reads is trimmed (a value ending in a newline, as
 * `echo … > file` writes it, works) and shape-checked at start: a malformed one stops the
 * account with a MalformedSecretError naming the setting and the variable, never the value.
 */
import { createAdapterWithSecrets } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { matrixConfigSchema } from "./config.ts";
import plugin from "./index.ts";

const config = matrixConfigSchema.parse({
  homeserverUrl: "http://127.0.0.1:9",
  deviceId: "HERALD",
});
const good: Record<string, string> = { MATRIX_ACCESS_TOKEN: "syt_aGVyYWxk_fakeTokenValue_1a2b3c" };

describe("secrets read at start (C49)", () => {
  it("accepts each secret with a trailing newline (trimmed)", () => {
    const withNewlines = Object.fromEntries(
      Object.entries(good).map(([name, value]) => [name, `${value}\n`]),
    );
    expect(createAdapterWithSecrets(plugin, config, withNewlines).error).toBeUndefined();
  });

  it.each([
    ["MATRIX_ACCESS_TOKEN", "syt_aGVyYWxk fakeTokenValue", "accessTokenEnv"],
    ["MATRIX_ACCESS_TOKEN", "  ", "accessTokenEnv"],
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
