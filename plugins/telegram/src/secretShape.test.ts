/**
 * [H28] C49: every secret this channel reads is trimmed (a value ending in a newline, as
 * `echo … > file` writes it, works) and shape-checked at start: a malformed one stops the
 * account with a MalformedSecretError naming the setting and the variable, never the value.
 */
import { secretShapeProblems } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { telegramConfigSchema } from "./config.ts";
import plugin from "./index.ts";

const config = telegramConfigSchema.parse({});
const good: Record<string, string> = {
  TELEGRAM_BOT_TOKEN: "7000001:AAH4fakeTokenForHeraldTests_x9Qz",
};

describe("secrets read at start (C49)", () => {
  it("trims each secret and refuses malformed ones, naming the setting, never the value", () => {
    const malformed = [
      { name: "TELEGRAM_BOT_TOKEN", value: "bot7000001:AAH4fakeToken", setting: "tokenEnv" },
      { name: "TELEGRAM_BOT_TOKEN", value: "7000001:AAH4 fakeToken", setting: "tokenEnv" },
    ];
    expect(secretShapeProblems(plugin, config, good, malformed)).toEqual([]);
  });
});
