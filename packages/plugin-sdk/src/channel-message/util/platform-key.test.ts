import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PLATFORM_KEY_ALPHABETS, platformKey } from "./platform-key.ts";

describe("platformKey", () => {
  it("makes a Discord nonce of at most 25 base62 characters, the same for the same key", () => {
    const key = `${randomUUID()}#0`;
    const nonce = platformKey(key, { maxLength: 25 });
    expect(nonce).toMatch(/^[0-9A-Za-z]{25}$/);
    expect(platformKey(key, { maxLength: 25 })).toBe(nonce);
    expect(platformKey(`${key.slice(0, -1)}1`, { maxLength: 25 })).not.toBe(nonce);
  });

  it("makes a Google Chat client id: client- then [a-z0-9-], at most 63", () => {
    const id = platformKey("intent-with UPPER case and ünïcode#12", {
      maxLength: 63,
      prefix: "client-",
      alphabet: PLATFORM_KEY_ALPHABETS.base36,
    });
    expect(id).toMatch(/^client-[a-z0-9-]+$/);
    expect(id.length).toBeLessThanOrEqual(63);
  });

  it("gives no collision across 20,000 distinct keys at Discord's length", () => {
    const seen = new Set<string>();
    const base = randomUUID();
    for (let i = 0; i < 20_000; i++) seen.add(platformKey(`${base}#${i}`, { maxLength: 25 }));
    expect(seen.size).toBe(20_000);
  });

  it("refuses a length or alphabet too small to be collision resistant", () => {
    expect(() => platformKey("k", { maxLength: 10 })).toThrow(
      /fewer than the 17 needed for 96 bits/,
    );
    expect(() => platformKey("k", { maxLength: 30, prefix: "x".repeat(20) })).toThrow(RangeError);
    expect(() => platformKey("k", { maxLength: 99, alphabet: "aa" })).toThrow(
      /2 distinct characters/,
    );
  });
});
