/**
 * [H28] C49: every secret this channel reads is trimmed (a value ending in a newline, as
 * `echo … > file` writes it, works) and shape-checked at start: a malformed one stops the
 * account with a MalformedSecretError naming the setting and the variable, never the value.
 */
import { secretShapeProblems } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { matrixConfigSchema } from "./config.ts";
import plugin from "./index.ts";

const config = matrixConfigSchema.parse({
  homeserverUrl: "http://127.0.0.1:9",
  deviceId: "HERALD",
});
const good: Record<string, string> = { MATRIX_ACCESS_TOKEN: "syt_aGVyYWxk_fakeTokenValue_1a2b3c" };

describe("secrets read at start (C49)", () => {
  it("trims each secret and refuses malformed ones, naming the setting, never the value", () => {
    const malformed = [
      {
        name: "MATRIX_ACCESS_TOKEN",
        value: "syt_aGVyYWxk fakeTokenValue",
        setting: "accessTokenEnv",
      },
      { name: "MATRIX_ACCESS_TOKEN", value: "  ", setting: "accessTokenEnv" },
    ];
    expect(secretShapeProblems(plugin, config, good, malformed)).toEqual([]);
  });
});
