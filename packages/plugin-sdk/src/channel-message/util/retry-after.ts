/**
 * `Retry-After` (RFC 9110 §10.2.3), the one copy: parsing what a platform or a proxy sent, and
 * formatting what a webhook answers. Wire seconds become `retryAfterMs` here and nowhere else.
 *
 * @module
 */

/**
 * Parses a `Retry-After` value: delay-seconds (`"120"`, also `"1.5"` as some platforms send) or
 * an HTTP date (`"Wed, 21 Oct 2026 07:28:00 GMT"`).
 *
 * @param nowMs - epoch ms an HTTP date is measured from. @defaultValue Date.now()
 * @returns the wait in milliseconds (a date in the past is 0), or `undefined` when the value is
 *   absent, empty, negative or unreadable.
 * @example parseRetryAfter("3") // 3000
 */
export function parseRetryAfter(
  value: string | null | undefined,
  nowMs: number = Date.now(),
): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1_000);
  if (/^[+-]?[\d.]+$/.test(text)) return undefined; // negative or malformed seconds
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** A `Retry-After` header value for a wait in ms: whole seconds, rounded up, at least 0. */
export function formatRetryAfter(retryAfterMs: number): string {
  return String(Math.max(0, Math.ceil(retryAfterMs / 1_000)));
}
