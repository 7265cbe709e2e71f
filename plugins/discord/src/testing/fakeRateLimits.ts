/**
 * The 429s Discord (and the edge in front of it) really answers, as scripted faults of the fake.
 * Each shape is a claim about the platform with its source:
 *
 * | shape | what arrives | source |
 * |---|---|---|
 * | `user` | `Retry-After` (whole s), bucket headers, `X-RateLimit-Scope: user`, body `{ message, retry_after (float s), global: false }` | docs topics/rate-limits, "Example Exceeded User Rate Limit Response" |
 * | `shared` | as `user` with `X-RateLimit-Scope: shared`, "The resource is being rate limited." | docs topics/rate-limits, "Example Exceeded Resource Rate Limit Response" |
 * | `global` | `Retry-After`, `X-RateLimit-Global: true`, `X-RateLimit-Scope: global`, body `global: true` | docs topics/rate-limits, "Example Exceeded Global Rate Limit Response" |
 * | `global_body_only` | no rate-limit header at all; body `{ retry_after (float s), global: true }` | discord-api-spec `ClientRatelimitedResponse` (no scope or global header, `retry_after` + `global` required); PLATFORMS.md §9; CASES C45 |
 * | `header_only` | `Retry-After` only; body `{ message, global: false }` without `retry_after` | a proxy's 429 (PLATFORMS.md §3a: "rely on the Retry-After header or the retry_after field") |
 * | `no_wait` | body `{ message, global: false }`, no `Retry-After`, no bucket headers | the spec's body minus its `retry_after` (seen from proxies); the client must back off on its own |
 * | `edge` | `text/html` "error code: 1015", `Retry-After`, no `X-RateLimit-*` | Cloudflare's restriction of an IP (docs "Invalid Request Limit aka Cloudflare bans"; discord-api-docs#1771, #5385) |
 *
 * @module
 */
import type { PlatformFault } from "@herald/plugin-sdk/testing";

/** A 429 shape of {@link rateLimitFault}. */
export type FakeRateLimitShape =
  | "user"
  | "shared"
  | "global"
  | "global_body_only"
  | "header_only"
  | "no_wait"
  | "edge";

/** Whole seconds, rounded up, as Discord's `Retry-After` header carries them. */
const headerSeconds = (seconds: number) => String(Math.max(1, Math.ceil(seconds)));

/** Per-route bucket headers of a spent bucket (they come with `user` and `shared` 429s). */
function bucketHeaders(seconds: number, remaining: number): Record<string, string> {
  return {
    "x-ratelimit-limit": "5",
    "x-ratelimit-remaining": String(remaining),
    "x-ratelimit-reset": ((Date.now() + seconds * 1_000) / 1_000).toFixed(3),
    "x-ratelimit-reset-after": seconds.toFixed(3),
    "x-ratelimit-bucket": "fakebucketmessages",
  };
}

/**
 * The JSON-bodied 429 of `shape` as a scripted fault (`fake.failNext(rateLimitFault(…))`).
 * The `edge` shape is not JSON: use {@link edgeRateLimitResponse} (`FakeDiscord.rateLimitNext`).
 *
 * @param retryAfterSeconds - the wait, in seconds (a float, as Discord's body carries it).
 */
export function rateLimitFault(
  shape: Exclude<FakeRateLimitShape, "edge">,
  retryAfterSeconds: number,
): PlatformFault {
  const s = retryAfterSeconds;
  switch (shape) {
    case "user":
      return {
        kind: "status",
        status: 429,
        body: { message: "You are being rate limited.", retry_after: s, global: false },
        headers: {
          ...bucketHeaders(s, 0),
          "retry-after": headerSeconds(s),
          "x-ratelimit-scope": "user",
        },
      };
    case "shared":
      return {
        kind: "status",
        status: 429,
        body: { message: "The resource is being rate limited.", retry_after: s, global: false },
        headers: {
          ...bucketHeaders(s, 4),
          "retry-after": headerSeconds(s),
          "x-ratelimit-scope": "shared",
        },
      };
    case "global":
      return {
        kind: "status",
        status: 429,
        body: { message: "You are being rate limited.", retry_after: s, global: true },
        headers: {
          "retry-after": headerSeconds(s),
          "x-ratelimit-global": "true",
          "x-ratelimit-scope": "global",
        },
      };
    case "global_body_only":
      return {
        kind: "status",
        status: 429,
        body: { message: "You are being rate limited.", retry_after: s, global: true },
      };
    case "header_only":
      return {
        kind: "status",
        status: 429,
        body: { message: "You are being rate limited.", global: false },
        headers: { "retry-after": headerSeconds(s) },
      };
    case "no_wait":
      return {
        kind: "status",
        status: 429,
        body: { message: "You are being rate limited.", global: false },
      };
  }
}

/** Cloudflare's answer to a restricted IP: HTML, a `Retry-After`, no Discord headers. */
export function edgeRateLimitResponse(retryAfterSeconds: number): Response {
  return new Response("error code: 1015", {
    status: 429,
    headers: { "content-type": "text/html", "retry-after": headerSeconds(retryAfterSeconds) },
  });
}
