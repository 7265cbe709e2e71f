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
  // Discord (discord-api-spec)
  {
    platform: "discord",
    operation: "get_channel",
    side: "response",
    message: /allowed values \(\[0,2,4,5,13,14,15\]\)|required property '(recipients|owner_id)'$/,
    reason:
      "A media channel (`GUILD_MEDIA`, type 16, Discord's channel-types table since 2023) is " +
      "missing from `GuildChannelResponse.type`'s enum; ajv then also names the other `oneOf` " +
      "branches' required fields (`recipients` of a DM, `owner_id` of a thread).",
  },
  // Slack (slack-api-specs, archived 2021)
  {
    platform: "slack",
    operation:
      /^POST \/api\/(chat\.(startStream|appendStream|stopStream)|files\.(getUploadURLExternal|completeUploadExternal)|apps\.connections\.open)$/,
    reason:
      "Methods Slack added after the description was archived (2021): the streaming methods " +
      "(2025), the external upload flow (2023), Socket Mode's apps.connections.open.",
  },
  {
    platform: "slack",
    operation: /^POST \/upload\//,
    reason:
      "The upload URL files.getUploadURLExternal hands out (files.slack.com) is not a Web API " +
      "method: no description exists.",
  },
  {
    platform: "slack",
    operation: /^conversations_(history|replies)$/,
    side: "response",
    field: "/messages",
    message: /fewer than 1 items/,
    reason:
      "`messages` has `minItems: 1`, but a window with no message (`oldest`/`latest`) or an " +
      "empty channel answers `messages: []`.",
  },
  {
    platform: "slack",
    operation: "auth_test",
    side: "response",
    field: "",
    message: /\((app_id|app_name|expires_in)\)$/,
    reason:
      "auth.test answers a bot token's `app_id` too (@slack/web-api's AuthTestResponse, typed " +
      "from recorded answers); the closed success schema predates it.",
  },
  {
    platform: "slack",
    operation: "*",
    side: "response",
    field: "/message",
    message: /\(app_id\)$/,
    reason:
      "`objs_message` is closed and lacks `app_id`, which Slack sets on every message a bot of " +
      "an app posts (beside `bot_id`).",
  },
  {
    platform: "slack",
    operation: "*",
    side: "response",
    field: "",
    message: /\(response_metadata\)$/,
    reason:
      "Error answers carry `response_metadata.messages` (e.g. `[ERROR] …` for invalid_arguments, " +
      'Slack docs: Web API, "Evaluating responses"); the closed per-method error schemas lack it.',
  },
  {
    platform: "slack",
    operation: "*",
    side: "response",
    field: "/error",
    message: /must be equal to one of the allowed values/,
    status: (s) => s === 429 || s === 200,
    reason:
      "Per-method error enums omit `ratelimited` (any method, Slack docs: Rate limits) and the " +
      "errors added since 2021; the fake's error codes are from the method pages.",
  },
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
    operation: /^(GET \/(oauth2\/v1\/certs|service_accounts\/v1\/metadata\/x509\/)|POST \/token$)/,
    reason:
      "Google's signing-key and token endpoints (served so the plugin verifies event tokens and " +
      "gets access tokens) belong to Google's OAuth2 service, not the Chat API: no description " +
      "of them is vendored.",
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
  // Discord: the attachment CDN is not the REST API
  {
    platform: "discord",
    operation: /^GET \/attachments\//,
    side: "request",
    message: /no operation of the description/,
    reason:
      "Attachment bytes come from Discord's CDN (`cdn.discordapp.com/attachments/…`, signed " +
      "URLs), which the REST description does not cover; the fake serves them ([H23] inbound files).",
  },
  // Telegram (grammY's types: Bot API methods only)
  {
    platform: "telegram",
    operation: /^GET \/file\/bot[^/]+\//,
    side: "request",
    message: /not a Bot API method/,
    reason:
      "File downloads (`GET /file/bot<token>/<file_path>`, the Bot API's getFile section) are " +
      "a URL, not a method, so the method schema has no entry for them ([H23] inbound files).",
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
