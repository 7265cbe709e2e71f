/**
 * [H28] C49: every secret this channel reads is trimmed (a value ending in a newline, as
 * `echo … > file` writes it, works) and shape-checked at start: a malformed one stops the
 * account with a MalformedSecretError naming the setting and the variable, never the value.
 */
import { secretShapeProblems } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { discordConfigSchema } from "./config.ts";
import plugin from "./index.ts";

const config = discordConfigSchema.parse({});
const good: Record<string, string> = {
  DISCORD_TOKEN: "NzAwMDAwMDAwMDAwMDAwMDAx.fake.herald-test-bot-token",
};

describe("secrets read at start (C49)", () => {
  it("trims each secret and refuses malformed ones, naming the setting, never the value", () => {
    const malformed = [
      {
        name: "DISCORD_TOKEN",
        value: "Bot NzAwMDAwMDAwMDAwMDAwMDAx.fake.herald-test-bot-token",
        setting: "tokenEnv",
      },
      { name: "DISCORD_TOKEN", value: "NzAwMDAwMDAwMDAwMDAwMDAx-no-dots", setting: "tokenEnv" },
    ];
    expect(secretShapeProblems(plugin, config, good, malformed)).toEqual([]);
  });
});
