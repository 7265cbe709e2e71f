/** [H28] C49: the one secret reader and the own-key lookup every plugin uses. */
import { describe, expect, it } from "vitest";
import {
  checkSecret,
  isMalformedSecretError,
  MalformedSecretError,
  ownValue,
  readSecret,
} from "./secrets.ts";
import { refuseUnauthenticated } from "./webhook-response.ts";

const spec = {
  channel: "slack",
  name: "SLACK_SIGNING_SECRET",
  setting: "receive.signingSecretEnv",
  what: "the Slack signing secret",
  shape: /^[A-Za-z0-9]+$/,
  expected: "letters and digits",
};

describe("checkSecret / readSecret", () => {
  it("trims the ends: a value written with echo … > file works", () => {
    expect(checkSecret("abc123\n", "main", spec)).toBe("abc123");
    expect(readSecret({ accountId: "main", secret: () => "\t abc123 \r\n" }, spec)).toBe("abc123");
  });

  it.each([
    ["", "is empty"],
    [" \n", "is empty"],
    ["abc 123", "whitespace"],
    ["abc\n123", "whitespace"],
    ["abc-123", "letters and digits"],
  ])("refuses %j (%s), naming the setting and the variable, never the value", (value, says) => {
    const error = (() => {
      try {
        checkSecret(value, "main", spec);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(MalformedSecretError);
    expect(isMalformedSecretError(error)).toBe(true);
    const e = error as MalformedSecretError;
    expect(e).toMatchObject({
      code: "HERALD_ACCOUNT_UNUSABLE",
      channel: "slack",
      accountId: "main",
      setting: "receive.signingSecretEnv",
      source: "SLACK_SIGNING_SECRET",
    });
    expect(e.message).toContain(says);
    expect(e.message).toContain("receive.signingSecretEnv");
    if (value.trim()) expect(`${e.message} ${e.fix}`).not.toContain(value.trim());
  });

  it("lets a multiline secret (a JSON key) keep its inner whitespace", () => {
    expect(checkSecret('{ "a": 1 }\n', "main", { ...spec, shape: /^\{/, multiline: true })).toBe(
      '{ "a": 1 }',
    );
  });
});

describe("ownValue", () => {
  it("finds own keys only, never Object.prototype's", () => {
    const teams = { T0123: "acme" };
    expect(ownValue(teams, "T0123")).toBe("acme");
    for (const key of ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"])
      expect(ownValue(teams, key)).toBeUndefined();
  });
});

describe("refuseUnauthenticated", () => {
  it("answers 401 and logs the reason once", async () => {
    const lines: string[] = [];
    const response = refuseUnauthenticated(
      { warn: (fields, message) => lines.push(`${message} ${JSON.stringify(fields)}`) },
      "slack",
      "bad_signature",
    );
    expect(response.status).toBe(401);
    expect(await response.text()).toBe("unauthorized: bad_signature");
    expect(lines).toEqual([
      expect.stringContaining("slack: webhook request refused (401): bad_signature"),
    ]);
  });
});
