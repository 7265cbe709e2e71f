/**
 * Discord's wire format for the fake: error bodies `{ code, message, errors? }` (nested
 * `_errors` for 50035), a 429's `{ message, retry_after, global }` with `retry_after` in
 * **seconds** (a float), and request bodies — JSON, or multipart with `payload_json` and
 * `files[n]` parts as discord.js sends uploads.
 *
 * Source: https://discord.com/developers/docs/reference#error-messages
 *
 * @module
 */
import type { Context, FakeErrorAnswer, FakePlatformEnv } from "@herald/plugin-sdk/testing";

/**
 * The user fields Discord always answers (`UserResponse` requires them in discord-api-spec's
 * openapi.json; `null`/`0` for a bot with no display name, badges or primary guild).
 */
export const USER_DEFAULTS = { global_name: null, public_flags: 0, flags: 0, primary_guild: null };

/** Discord JSON error codes the fake answers with, by the neutral codes faults use. */
const CODE_OF: Record<string, { code: number; message: string }> = {
  bad_request: { code: 50035, message: "Invalid Form Body" },
  unauthorized: { code: 0, message: "401: Unauthorized" },
  forbidden: { code: 50013, message: "Missing Permissions" },
  not_found: { code: 10008, message: "Unknown Message" },
  unknown_channel: { code: 10003, message: "Unknown Channel" },
  conflict: { code: 0, message: "409: Conflict" },
};

/** Renders a platform-neutral error answer the way Discord does. */
export function discordErrorBody(answer: FakeErrorAnswer): unknown {
  if (answer.status === 429) {
    // A wait announced only in the header (a proxy's 429) leaves the body without one.
    return {
      message: "You are being rate limited.",
      ...(answer.retryAfterMs !== undefined ? { retry_after: answer.retryAfterMs / 1_000 } : {}),
      global: false,
    };
  }
  const numeric = /^\d+$/.test(answer.code) ? Number(answer.code) : undefined;
  const known = CODE_OF[answer.code];
  const description = answer.description.startsWith("scripted fault")
    ? undefined
    : answer.description;
  return {
    code: numeric ?? known?.code ?? 0,
    message: description ?? known?.message ?? `${answer.status}: ${answer.code}`,
  };
}

/** A Discord error inside a fake route (rendered by the route wrapper). */
export class FakeDiscordError extends Error {
  readonly status: number;
  readonly code: number;
  readonly errors: unknown;
  readonly headers: Record<string, string>;
  constructor(
    status: number,
    code: number,
    message: string,
    errors?: unknown,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.errors = errors;
    this.headers = headers;
  }
}

/** `400 50035 Invalid Form Body` with one field error at `path` (dot/bracket path). */
export function invalidForm(path: string, code: string, message: string): FakeDiscordError {
  const errors: Record<string, unknown> = {};
  let node = errors;
  const keys = path.split(/[.[\]]+/).filter(Boolean);
  for (const [i, key] of keys.entries()) {
    const next: Record<string, unknown> =
      i === keys.length - 1 ? { _errors: [{ code, message }] } : {};
    node[key] = next;
    node = next;
  }
  return new FakeDiscordError(400, 50035, "Invalid Form Body", errors);
}

/** Renders a thrown {@link FakeDiscordError}. */
export function errorResponse(error: FakeDiscordError): Response {
  return new Response(
    JSON.stringify({
      code: error.code,
      message: error.message,
      ...(error.errors !== undefined ? { errors: error.errors } : {}),
    }),
    {
      status: error.status,
      headers: { "content-type": "application/json", ...error.headers },
    },
  );
}

/** A request's body: JSON, or multipart (`payload_json` + `files[n]`). */
export async function readBody(
  c: Context<FakePlatformEnv>,
): Promise<{ json: Record<string, unknown>; files: Array<{ name: string; size: number }> }> {
  const type = c.req.header("content-type") ?? "";
  if (type.startsWith("multipart/form-data")) {
    const form = await c.req.formData();
    const payload = form.get("payload_json");
    const json =
      typeof payload === "string" ? (JSON.parse(payload) as Record<string, unknown>) : {};
    const files: Array<{ name: string; size: number }> = [];
    for (const [key, value] of form.entries()) {
      if (key.startsWith("files[") && typeof value !== "string") {
        files.push({ name: value.name, size: value.size });
      }
    }
    return { json, files };
  }
  const text = await c.req.text();
  return { json: text ? (JSON.parse(text) as Record<string, unknown>) : {}, files: [] };
}
