/**
 * [H28] C49: every secret this channel reads is trimmed (a value ending in a newline, as
 * `echo … > file` writes it, works) and shape-checked at start: a malformed one stops the
 * account with a MalformedSecretError naming the setting and the variable, never the value.
 */
import { secretShapeProblems } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { qaConfigSchema } from "./config.ts";
import plugin from "./index.ts";

const config = qaConfigSchema.parse({ baseUrl: "http://127.0.0.1:9" });
const good: Record<string, string> = { HERALD_QA_TOKEN: "herald:qa-secret" };

describe("secrets read at start (C49)", () => {
  it("trims each secret and refuses malformed ones, naming the setting, never the value", () => {
    const malformed = [
      { name: "HERALD_QA_TOKEN", value: "qa-secret-without-bot-id", setting: "tokenSecret" },
      { name: "HERALD_QA_TOKEN", value: "herald:qa secret", setting: "tokenSecret" },
    ];
    expect(secretShapeProblems(plugin, config, good, malformed)).toEqual([]);
  });
});
