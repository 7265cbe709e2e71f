/**
 * Slack's wire format in the fake: request arguments (form-encoded as `@slack/web-api` sends
 * them, objects JSON-stringified into fields; JSON bodies too), `{ ok: false, error }` answers,
 * and the platform-neutral fault codes of `@herald/plugin-sdk/testing` rendered as Slack's own
 * error codes.
 *
 * @module
 */
import type { FakeErrorAnswer } from "@herald/plugin-sdk/testing";

/** Neutral fault codes → Slack's error codes (PLATFORMS.md §3c). Unknown codes pass as they are. */
const SLACK_CODES: Readonly<Record<string, string>> = {
  bad_request: "invalid_arguments",
  unauthorized: "invalid_auth",
  forbidden: "not_in_channel",
  not_found: "channel_not_found",
  rate_limited: "ratelimited",
  internal_error: "internal_error",
  internal: "internal_error",
  unavailable: "service_unavailable",
  too_large: "msg_too_long",
};

/** The Slack error body of a fault: `{ ok: false, error, response_metadata.messages }`. */
export function slackErrorBody(answer: FakeErrorAnswer): unknown {
  return {
    ok: false,
    error: SLACK_CODES[answer.code] ?? answer.code,
    ...(answer.description
      ? { response_metadata: { messages: [`[ERROR] ${answer.description}`] } }
      : {}),
  };
}

/** Reads a Web API request's arguments: form fields (JSON in `metadata`, `blocks`…) or JSON. */
export async function readArgs(request: Request): Promise<Record<string, unknown>> {
  const type = request.headers.get("content-type") ?? "";
  const text = await request.text();
  if (type.includes("application/json")) {
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) out[key] = value;
  return out;
}

/** A field that may arrive JSON-stringified (form bodies) or as an object (JSON bodies). */
export function jsonField(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** A boolean field (`"true"` / `true` / `1`). */
export function boolField(value: unknown): boolean {
  return value === true || value === "true" || value === "1" || value === 1;
}

/** An `{ ok: true, … }` answer. */
export function ok(body: Record<string, unknown> = {}): Response {
  return Response.json({ ok: true, ...body });
}

/** A Slack `ok: false` answer (HTTP 200, as Slack answers nearly every error). */
export function fail(error: string, extra: Record<string, unknown> = {}): Response {
  return Response.json({ ok: false, error, ...extra });
}
