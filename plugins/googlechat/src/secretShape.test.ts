/**
 * [H28] C49: every secret this channel reads is trimmed (a value ending in a newline, as
 * `echo … > file` writes it, works) and shape-checked at start: a malformed one stops the
 * account with a MalformedSecretError naming the setting and the variable, never the value.
 */
import { secretShapeProblems } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { googleChatConfigSchema } from "./config.ts";
import plugin from "./index.ts";

const config = googleChatConfigSchema.parse({ credentials: { type: "access_token" } });
const good: Record<string, string> = {
  GOOGLE_CHAT_ACCESS_TOKEN: "ya29.fake-herald-chat-app-token-Zq81",
};

describe("secrets read at start (C49)", () => {
  it("trims each secret and refuses malformed ones, naming the setting, never the value", () => {
    const malformed = [
      {
        name: "GOOGLE_CHAT_ACCESS_TOKEN",
        value: "Bearer ya29.fake-herald-chat-app-token-Zq81",
        setting: "credentials.tokenEnv",
      },
    ];
    expect(secretShapeProblems(plugin, config, good, malformed)).toEqual([]);
  });
});
