/**
 * Where a platform's published description is known to be wrong or silent, and the fake follows
 * the real platform instead. Every entry says why; keep the list short — a divergence that is not
 * here fails the test that caused it.
 *
 * @module
 */
import type { FakeTrafficViolation } from "@herald/plugin-sdk/testing";

/** One known gap between a description and the platform. */
export type AllowEntry = {
  platform: string;
  /** Operation id (or `METHOD /path` for calls the description lacks); `*` for all. */
  operation: string | RegExp;
  side?: "request" | "response";
  /** The field path the violation names starts with this. */
  field?: string;
  /** The violation's message matches this. */
  message?: RegExp;
  /** The call's status (as in `-> 429`). */
  status?: number | ((status: number) => boolean);
  reason: string;
};

/** The entries, per platform. */
export const ALLOW_LIST: readonly AllowEntry[] = [
  // Discord (discord-api-spec, specs/openapi.json)
  {
    platform: "discord",
    operation: /^(create_message|update_message)$/,
    side: "request",
    field: "/body/attachments/",
    message: /^must be string$/,
    reason:
      "An uploaded file's `attachments[].id` is a placeholder: the index of its `files[n]` part " +
      "(Discord docs: Uploading Files). discord.js sends it as a number; the description types " +
      "every attachment id as a snowflake string.",
  },
  {
    platform: "discord",
    operation: "*",
    side: "response",
    status: (s) => s >= 500,
    message: /is not described/,
    reason:
      "The description lists only 2xx, 429 and 4XX answers; Discord's docs list 5XX (\"the server " +
      'had an error processing your request") and its edge answers 502/503/504 (PLATFORMS.md §3).',
  },
  {
    platform: "discord",
    operation: "*",
    side: "response",
    status: 429,
    field: "",
    message: /required property 'code'/,
    reason:
      "`RatelimitedResponse` inherits a required `code` from `Error`; Discord's docs (Rate Limits, " +
      '"Rate Limit Response Structure") make `code` optional, and per-route 429s carry none.',
  },
  {
    platform: "discord",
    operation: "*",
    side: "response",
    status: 429,
    message: /required property 'retry_after'/,
    reason:
      "A scripted 429 with the wait only in `Retry-After` stands for a 429 from Discord's edge " +
      "(Cloudflare), which is not Discord's JSON body and is not in the description.",
  },
  {
    platform: "discord",
    operation: "*",
    side: "response",
    status: 400,
    field: "/errors/",
    message: /must be integer|must be object|must match exactly one schema in oneOf/,
    reason:
      "`InnerErrors._errors[].code` is typed integer, but Discord's field errors carry string " +
      'codes (`{ code: "BASE_TYPE_MAX_LENGTH", message }`, docs: Reference, Error Messages).',
  },
  {
    platform: "googlechat",
    operation: /^GET \/(oauth2\/v1\/certs|service_accounts\/v1\/metadata\/x509\/)/,
    reason:
      "Google's signing-key endpoints (the fake serves them so the plugin verifies event tokens) " +
      "belong to Google's OAuth2 service, not the Chat API: no description of them is vendored.",
  },
  {
    platform: "googlechat",
    operation: "*",
    message: /\(markupSyntax\)$/,
    reason:
      "Message.markupSyntax (MARKUP_SYNTAX_MARKDOWN) was added to the Chat API after the vendored " +
      "discovery revision 20240709; @googleapis/chat 51.0.0 (the plugin's client) has it in " +
      "Schema$Message. Drop this when the vendored document is refreshed.",
  },
  {
    platform: "googlechat",
    operation: "*",
    side: "response",
    status: (s) => s >= 400,
    message: /not described|no body/,
    reason:
      "Discovery documents describe no error answers; Google's are AIP-193 " +
      "`{ error: { code, message, status, details } }` (google.rpc.Status), rendered by the fake's wire.",
  },
];

/** Whether `v` is an allowed, known gap. */
export function isAllowed(v: FakeTrafficViolation): boolean {
  const status = Number(/-> (\d+)$/.exec(v.call)?.[1]);
  return ALLOW_LIST.some(
    (e) =>
      e.platform === v.platform &&
      (e.operation === "*" ||
        (typeof e.operation === "string"
          ? e.operation === v.operation
          : e.operation.test(v.operation))) &&
      (e.side === undefined || e.side === v.side) &&
      (e.field === undefined || v.field.startsWith(e.field)) &&
      (e.message === undefined || e.message.test(v.message)) &&
      (e.status === undefined ||
        (typeof e.status === "number" ? e.status === status : e.status(status))),
  );
}

/** Allow-list entries of one platform (for the counts in the docs). */
export function allowListOf(platform: string): AllowEntry[] {
  return ALLOW_LIST.filter((e) => e.platform === platform);
}
