import { createHmac, generateKeyPairSync, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  constantTimeEqual,
  ed25519PublicKey,
  hmacSha256Hex,
  verifyEd25519,
  verifyHmacSha256,
  verifyTimestampedHmac,
} from "./verify.ts";

describe("constantTimeEqual", () => {
  it("is true only for equal values, whatever their lengths", () => {
    expect(constantTimeEqual("secret-token", "secret-token")).toBe(true);
    expect(constantTimeEqual("secret-token", "secret-tokem")).toBe(false);
    expect(constantTimeEqual("secret", "secret-token")).toBe(false);
    expect(constantTimeEqual("", "x")).toBe(false);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
  });
});

describe("verifyHmacSha256 (Slack v0 over the raw body)", () => {
  const secret = "8f742231b10e8888abcd99yyyzzz85a5";
  const ts = "1531420618";
  // A form-encoded slash command: the signature covers these exact bytes, not a re-encoding.
  const raw = new TextEncoder().encode("token=x&team_id=T1&text=caf%C3%A9+%2A");
  const signature = `v0=${createHmac("sha256", secret).update(`v0:${ts}:`).update(raw).digest("hex")}`;

  it("accepts the signature of the exact bytes", () => {
    expect(
      verifyHmacSha256({ secret, signed: ["v0:", ts, ":", raw], signature, prefix: "v0=" }),
    ).toBe(true);
    expect(hmacSha256Hex(secret, ["v0:", ts, ":", raw])).toBe(signature.slice(3));
  });

  it("refuses a changed body, timestamp or secret, a missing or unprefixed header", () => {
    const body = new TextEncoder().encode("token=x&team_id=T1&text=café *"); // decoded + re-encoded
    expect(
      verifyHmacSha256({ secret, signed: ["v0:", ts, ":", body], signature, prefix: "v0=" }),
    ).toBe(false);
    expect(
      verifyHmacSha256({
        secret,
        signed: ["v0:", "1531420619", ":", raw],
        signature,
        prefix: "v0=",
      }),
    ).toBe(false);
    expect(
      verifyHmacSha256({
        secret: "other",
        signed: ["v0:", ts, ":", raw],
        signature,
        prefix: "v0=",
      }),
    ).toBe(false);
    expect(verifyHmacSha256({ secret, signed: [raw], signature: null, prefix: "v0=" })).toBe(false);
    expect(
      verifyHmacSha256({
        secret,
        signed: ["v0:", ts, ":", raw],
        signature: signature.slice(3),
        prefix: "v0=",
      }),
    ).toBe(false);
  });

  it("reads base64 digests", () => {
    const b64 = createHmac("sha256", secret).update(raw).digest("base64");
    expect(verifyHmacSha256({ secret, signed: [raw], signature: b64, encoding: "base64" })).toBe(
      true,
    );
  });
});

describe("verifyTimestampedHmac (a signed timestamp within a window, then the HMAC)", () => {
  const secret = "whsec-abcdef123";
  const body = new TextEncoder().encode('{"type":"message.created"}');
  const now = 1_800_000_000_000;
  const sign = (ts: string, key = secret) =>
    `sha256=${createHmac("sha256", key).update(`${ts}.`).update(body).digest("hex")}`;
  const check = (timestamp: string | null, signature: string | null, at = now) =>
    verifyTimestampedHmac({
      secret,
      timestamp,
      signature,
      signed: (t) => [t, ".", body],
      prefix: "sha256=",
      now: at,
    });
  const ts = String(now / 1_000);

  it("accepts a fresh, correctly signed request, up to the window's edge", () => {
    expect(check(ts, sign(ts))).toBe(true);
    expect(check(ts, sign(ts), now + 300_000)).toBe(true);
  });

  it("refuses a stale or future timestamp even when the signature matches (a replayed capture)", () => {
    expect(check(ts, sign(ts), now + 301_000)).toBe(false);
    expect(check(ts, sign(ts), now - 301_000)).toBe(false);
  });

  it("refuses a wrong secret, a missing or malformed timestamp, a missing signature", () => {
    expect(check(ts, sign(ts, "other-secret"))).toBe(false);
    expect(check(null, sign(ts))).toBe(false);
    expect(check("", sign(""))).toBe(false);
    expect(check("17e8", sign("17e8"))).toBe(false);
    expect(check(`${ts}.5`, sign(`${ts}.5`))).toBe(false);
    expect(check(ts, null)).toBe(false);
  });

  it("takes its window in seconds (maxSkewSeconds)", () => {
    const late = now + 30_000;
    const verify = (maxSkewSeconds: number) =>
      verifyTimestampedHmac({
        secret,
        timestamp: ts,
        signature: sign(ts),
        signed: (t) => [t, ".", body],
        prefix: "sha256=",
        maxSkewSeconds,
        now: late,
      });
    expect(verify(29)).toBe(false);
    expect(verify(30)).toBe(true);
  });
});

describe("verifyEd25519 (Discord interactions: timestamp + raw body)", () => {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const hex = Buffer.from(publicKey.export({ format: "jwk" }).x as string, "base64url").toString(
    "hex",
  );
  const ts = "1700000000";
  const body = '{"type":1}';
  const signature = sign(null, Buffer.from(ts + body), privateKey).toString("hex");

  it("accepts a signature made with the application's key, from hex or a KeyObject", () => {
    expect(verifyEd25519({ publicKey: hex, signed: [ts, body], signature })).toBe(true);
    expect(verifyEd25519({ publicKey: ed25519PublicKey(hex), signed: [ts, body], signature })).toBe(
      true,
    );
  });

  it("refuses a changed body, a malformed or missing signature", () => {
    expect(verifyEd25519({ publicKey: hex, signed: [ts, '{"type":2}'], signature })).toBe(false);
    expect(verifyEd25519({ publicKey: hex, signed: [ts, body], signature: "zz" })).toBe(false);
    expect(verifyEd25519({ publicKey: hex, signed: [ts, body], signature: undefined })).toBe(false);
  });

  it("names the problem with a malformed public key", () => {
    expect(() => ed25519PublicKey("abc")).toThrow("an Ed25519 public key must be 64 hex digits");
  });
});
