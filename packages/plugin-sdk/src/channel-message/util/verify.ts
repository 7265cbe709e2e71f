/**
 * Webhook authentication, the one copy (DESIGN §11: authenticated before anything is recorded,
 * compared in constant time): secret tokens, HMAC-SHA256 signatures (Slack v0) and Ed25519
 * signatures (Discord interactions) over the **raw** request bytes, on `node:crypto`. Read the
 * body once as bytes (`new Uint8Array(await request.arrayBuffer())`), verify, then parse.
 *
 * @module
 */
import {
  createHash,
  createHmac,
  createPublicKey,
  type KeyObject,
  timingSafeEqual,
  verify,
} from "node:crypto";

/** Bytes or text (text is UTF-8 encoded). */
export type SignedData = string | Uint8Array;

/**
 * Compares two secrets in time independent of where they differ and of their lengths (both are
 * hashed to 32 bytes first, so a length difference does not return early).
 */
export function constantTimeEqual(given: SignedData, expected: SignedData): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  const sameLength = Buffer.byteLength(given) === Buffer.byteLength(expected);
  return timingSafeEqual(a, b) && sameLength;
}

/**
 * HMAC-SHA256 of the concatenated `parts` (e.g. Slack's `["v0:", timestamp, ":", rawBody]`).
 * @returns the digest, hex-encoded (lower case).
 */
export function hmacSha256Hex(secret: SignedData, parts: readonly SignedData[]): string {
  return hmacSha256(secret, parts).toString("hex");
}

function hmacSha256(secret: SignedData, parts: readonly SignedData[]): Buffer {
  const hmac = createHmac("sha256", secret);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
}

/** What {@link verifyHmacSha256} checks. */
export type HmacSha256Check = {
  secret: SignedData;
  /** What was signed, concatenated in order: raw body bytes, with any prefix the platform signs. */
  signed: readonly SignedData[];
  /** The signature header as sent, e.g. `v0=5f1c…`. */
  signature: string | null | undefined;
  /** Prefix before the digest in the header (Slack `v0=`). @defaultValue "" */
  prefix?: string;
  /** How the digest is written. @defaultValue "hex" */
  encoding?: "hex" | "base64";
};

/**
 * Verifies an HMAC-SHA256 signature over raw bytes, in constant time.
 * @returns false for a missing, malformed or wrong signature (never throws on bad input).
 * @example
 * verifyHmacSha256({ secret, signed: ["v0:", ts, ":", rawBody], signature: req.headers.get("x-slack-signature"), prefix: "v0=" })
 */
export function verifyHmacSha256(check: HmacSha256Check): boolean {
  const { signature } = check;
  const prefix = check.prefix ?? "";
  if (!signature?.startsWith(prefix)) return false;
  const digest = hmacSha256(check.secret, check.signed).toString(check.encoding ?? "hex");
  const expected = `${prefix}${digest}`;
  return constantTimeEqual(signature, expected);
}

/** What {@link verifyTimestampedHmac} checks. */
export type TimestampedHmacCheck = Omit<HmacSha256Check, "signed"> & {
  /** The signing time as sent, in epoch **seconds** (Slack `X-Slack-Request-Timestamp`). */
  timestamp: string | null | undefined;
  /** What was signed, given the timestamp: Slack `(ts) => ["v0:", ts, ":", rawBody]`. */
  signed(timestamp: string): readonly SignedData[];
  /** How far the timestamp may be from `now`, in seconds. @defaultValue 300 (5 minutes) */
  maxSkewSeconds?: number;
  /** Epoch ms the timestamp is compared with. @defaultValue Date.now() */
  now?: number;
};

/**
 * Verifies a signature over a timestamp and the raw body, as Slack (v0) and most webhook
 * signers do: the timestamp must be 1–12 digits within `maxSkewSeconds` of `now` — so a
 * captured request replayed later is refused like a forged one — and the HMAC-SHA256 of
 * `signed(timestamp)` must match, compared in constant time.
 *
 * @returns false for a missing, malformed or stale timestamp and a missing or wrong signature.
 * @example
 * verifyTimestampedHmac({
 *   secret,
 *   timestamp: request.headers.get("x-acme-timestamp"),
 *   signature: request.headers.get("x-acme-signature"),
 *   signed: (ts) => [ts, ".", rawBody],
 *   prefix: "sha256=",
 * });
 */
export function verifyTimestampedHmac(check: TimestampedHmacCheck): boolean {
  const { timestamp, signed, maxSkewSeconds = 300, now = Date.now(), ...hmac } = check;
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(now / 1_000 - Number(timestamp)) > maxSkewSeconds) return false;
  return verifyHmacSha256({ ...hmac, signed: signed(timestamp) });
}

/**
 * An Ed25519 public key from its raw 32 bytes, hex-encoded (Discord's "public key" of an
 * application).
 * @throws TypeError when `hex` is not 64 hex digits.
 */
export function ed25519PublicKey(hex: string): KeyObject {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new TypeError("an Ed25519 public key must be 64 hex digits (32 bytes)");
  }
  const x = Buffer.from(hex, "hex").toString("base64url");
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" });
}

/** What {@link verifyEd25519} checks. */
export type Ed25519Check = {
  /** A key from {@link ed25519PublicKey}, or its 64 hex digits. */
  publicKey: KeyObject | string;
  /** What was signed, concatenated in order (Discord: `[timestamp, rawBody]`). */
  signed: readonly SignedData[];
  /** The signature, hex-encoded (Discord `X-Signature-Ed25519`). */
  signature: string | null | undefined;
};

/**
 * Verifies an Ed25519 signature over raw bytes.
 * @returns false for a missing, malformed or wrong signature.
 * @throws TypeError when `publicKey` is a malformed hex string (a configuration error).
 */
export function verifyEd25519(check: Ed25519Check): boolean {
  const key =
    typeof check.publicKey === "string" ? ed25519PublicKey(check.publicKey) : check.publicKey;
  const { signature } = check;
  if (!signature || !/^[0-9a-fA-F]{128}$/.test(signature)) return false;
  const data = Buffer.concat(check.signed.map((p) => (typeof p === "string" ? Buffer.from(p) : p)));
  return verify(null, data, key, Buffer.from(signature, "hex"));
}
