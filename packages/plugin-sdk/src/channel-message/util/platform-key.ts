/**
 * `platformKey`: herald's idempotency keys (`<intent id>#<unit>`, any length, any characters)
 * shortened to what a platform accepts as a client key — Discord's `nonce` (≤ 25 characters),
 * Google Chat's `messageId` (`client-` + `[a-z0-9-]`, ≤ 63), Matrix's `txnId`. The same key
 * always gives the same platform key (a retry after a crash sends the same one, so the platform
 * deduplicates), and different keys give different ones with the collision resistance of the
 * SHA-256 bits that fit.
 *
 * @module
 */
import { createHash } from "node:crypto";

/** Alphabets platforms accept in client keys. */
export const PLATFORM_KEY_ALPHABETS = {
  /** `0-9 A-Z a-z` (Discord nonce, Matrix txnId). */
  base62: "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
  /** `0-9 a-z` (Google Chat `client-` ids allow `-` too; this leaves it for the prefix). */
  base36: "0123456789abcdefghijklmnopqrstuvwxyz",
  /** `0-9`. */
  decimal: "0123456789",
} as const;

/** Options of {@link platformKey}. */
export type PlatformKeyOptions = {
  /** The platform's limit on the whole key, prefix included, in characters. */
  maxLength: number;
  /** Characters the hash part is written in. @defaultValue PLATFORM_KEY_ALPHABETS.base62 */
  alphabet?: string;
  /** Put in front as is (Google Chat `client-`). @defaultValue "" */
  prefix?: string;
};

/** Fewer bits than this would make collisions between a year of keys plausible. */
const MIN_BITS = 96;

/**
 * Derives a platform client key from an idempotency key: `prefix` + the SHA-256 of `key`
 * written in `alphabet`, using every character `maxLength` leaves (up to the 256 bits there are).
 *
 * @throws RangeError when the alphabet has fewer than 2 distinct characters or repeats one, or
 *   when `maxLength` leaves room for fewer than 96 bits after the prefix.
 * @example
 * platformKey("0b9f…#0", { maxLength: 25 }); // Discord nonce, 25 base62 characters
 * platformKey("0b9f…#0", { maxLength: 63, prefix: "client-", alphabet: PLATFORM_KEY_ALPHABETS.base36 });
 */
export function platformKey(key: string, options: PlatformKeyOptions): string {
  const alphabet = options.alphabet ?? PLATFORM_KEY_ALPHABETS.base62;
  const prefix = options.prefix ?? "";
  const symbols = [...alphabet];
  if (symbols.length < 2 || new Set(symbols).size !== symbols.length) {
    throw new RangeError("platformKey: the alphabet needs at least 2 distinct characters");
  }
  const bitsPerChar = Math.log2(symbols.length);
  const room = options.maxLength - [...prefix].length;
  if (!Number.isInteger(options.maxLength) || room * bitsPerChar < MIN_BITS) {
    throw new RangeError(
      `platformKey: maxLength ${options.maxLength} leaves ${Math.max(0, room)} characters after the prefix, fewer than the ${Math.ceil(MIN_BITS / bitsPerChar)} needed for ${MIN_BITS} bits`,
    );
  }
  const length = Math.min(room, Math.floor(256 / bitsPerChar));
  let n = BigInt(`0x${createHash("sha256").update(key).digest("hex")}`);
  const base = BigInt(symbols.length);
  let out = "";
  for (let i = 0; i < length; i++) {
    out += symbols[Number(n % base)];
    n /= base;
  }
  return prefix + out;
}
