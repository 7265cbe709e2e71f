import { describe, expect, it } from "vitest";
import { REDACTED, redactSecrets, redactUrls, SecretRedactor, secretForms } from "./redact.ts";

const TOKEN = "123456:AAH-secret_part+with/slash";

describe("redactSecrets", () => {
  it("redacts a value configured with a trailing newline wherever the trimmed token leaks", () => {
    const configured = `${TOKEN}\n`; // what a k8s secret / .env file holds
    const leaked = `fetch failed: https://api.telegram.org/bot${TOKEN}/sendMessage`;
    expect(redactSecrets(leaked, [configured])).toBe(
      `fetch failed: https://api.telegram.org/bot${REDACTED}/sendMessage`,
    );
  });

  it("redacts the URL-encoded and form-encoded forms", () => {
    const text = `url=${encodeURIComponent(TOKEN)} form=${new URLSearchParams({ t: "a b c d e f" }).toString()}`;
    const out = redactSecrets(text, [TOKEN, " a b c d e f\t"]);
    expect(out).toBe(`url=${REDACTED} form=t=${REDACTED}`);
    expect(out).not.toContain("secret_part");
  });

  it("replaces the raw value whole (newline included) before its trimmed form", () => {
    expect(redactSecrets(`a ${TOKEN}\n b`, [`${TOKEN}\n`])).toBe(`a ${REDACTED} b`);
  });

  it("redacts the JSON-escaped form: a secret with quotes, backslashes or newlines inside a stored JSON value", () => {
    const key = '{"type":"service_account","private_key":"-----BEGIN\\nabc\\n-----END"}\nline2';
    const stored = JSON.stringify({ failure: { message: `bad credentials ${key}` } }, null, 2);
    const out = redactSecrets(stored, [key]);
    expect(out).not.toContain("service_account");
    expect(out).not.toContain("line2");
    expect(JSON.parse(out).failure.message).toBe("bad credentials [redacted]");
  });

  it("leaves secrets shorter than six characters alone", () => {
    expect(secretForms("  abc \n")).toEqual([]);
    expect(redactSecrets("abc abc", ["abc"])).toBe("abc abc");
  });
});

describe("SecretRedactor", () => {
  it("redacts every secret added, counting trimmed duplicates once", () => {
    const r = new SecretRedactor().add(`${TOKEN}\n`).add(TOKEN).add("hunter2-hunter2");
    expect(r.size).toBe(2);
    expect(r.redact(`${TOKEN} and hunter2-hunter2`)).toBe(`${REDACTED} and ${REDACTED}`);
  });
});

describe("redactUrls", () => {
  it("drops user info, path, query and fragment of every URL; scheme and host stay", () => {
    expect(
      redactUrls(
        "GET https://api.telegram.org/bot1:ABC/getMe and http://u:p@host:8080/x?access_token=t#f then https://example.test done",
      ),
    ).toBe(
      `GET https://api.telegram.org/${REDACTED} and http://host:8080/${REDACTED} then https://example.test done`,
    );
    expect(redactUrls("no url here: ECONNRESET")).toBe("no url here: ECONNRESET");
  });
});
