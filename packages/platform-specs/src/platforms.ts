/**
 * The vendored description of each platform, loaded on first use, and how its URLs map onto it.
 * See `vendor/<platform>/README.md` for where each came from.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { CompositeDescription } from "./composite.ts";
import { discoveryToOpenApi } from "./discovery.ts";
import { OpenApiDescription } from "./openapi.ts";
import { TelegramDescription } from "./telegram.ts";

/** What a platform's check needs of its description. */
export type Description = Pick<
  OpenApiDescription,
  "platform" | "check" | "covered" | "validations"
>;

type Json = Record<string, unknown>;

const vendor = (path: string) => new URL(`../vendor/${path}`, import.meta.url);

async function readJson(path: string): Promise<Json> {
  return JSON.parse(await readFile(vendor(path), "utf8")) as Json;
}

/** Platforms with a vendored description. */
export const PLATFORMS = ["discord", "googlechat", "slack", "matrix", "telegram"] as const;
export type Platform = (typeof PLATFORMS)[number];

const loaders: Record<Platform, () => Promise<Description>> = {
  // discord-api-spec: OpenAPI 3.1, server https://discord.com/api/v10 (discord.js puts the
  // version in the path; the gateway's own `/gateway/bot` is in the description too).
  discord: async () => {
    const d = new OpenApiDescription(await readJson("discord/openapi.json"), {
      platform: "discord",
      basePath: /^\/api(\/v\d+)?/,
      draft2020: true,
    });
    d.warm("POST", "/channels/1/messages");
    d.warm("PATCH", "/channels/1/messages/1");
    return d;
  },
  // slack-api-specs: Swagger 2.0 at basePath `/api`, one path per Web API method. Slack answers
  // its errors with HTTP 200 and `ok: false`: those are the description's `default` response.
  slack: async () => {
    const d = new OpenApiDescription(
      await readJson("slack/slack_web_openapi_v2_without_examples.json"),
      {
        platform: "slack",
        basePath: /^\/api/,
        argumentsAnywhere: true,
        responseKey: (status, body, responses) =>
          status === 200 &&
          (body as { ok?: unknown } | undefined)?.ok === false &&
          "default" in responses
            ? "default"
            : undefined,
      },
    );
    for (const name of ["chat.postMessage", "chat.update", "conversations.history"]) {
      d.warm("POST", `/api/${name}`);
    }
    return d;
  },
  // matrix-spec: one OpenAPI 3.1 YAML document per Client-Server module, each with its own
  // base path (`/_matrix/client/v3`, `…/v1`), bundled (the `$ref`s across files pulled into
  // each) by `vendor/matrix/bundle.ts` into one JSON file: bundling at load took seconds.
  matrix: async () => {
    const bundled = (await readJson("matrix/client-server.bundled.json")) as unknown as {
      documents: Array<{ basePath: string; doc: Json }>;
      errors: { error: Json; rateLimited: Json };
    };
    // "Any errors which occur at the Matrix API level MUST return a standard error response"
    // (Client-Server API, API standards): statuses an endpoint does not list are checked as one.
    const { error, rateLimited } = bundled.errors;
    const parts = bundled.documents.map(
      ({ basePath, doc }) =>
        new OpenApiDescription(doc, {
          platform: "matrix",
          basePath: new RegExp(`^${basePath.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
          draft2020: true,
          undeclaredError: (status) => (status === 429 ? rateLimited : error),
        }),
    );
    const matrix = new CompositeDescription("matrix", parts);
    matrix.warm("GET", "/_matrix/client/v3/sync");
    matrix.warm("PUT", "/_matrix/client/v3/rooms/!r/send/m.room.message/t");
    matrix.warm("GET", "/_matrix/client/v3/rooms/!r/messages");
    return matrix;
  },
  // The Bot API types grammY ships, as JSON Schema (`vendor/telegram/generate.ts`).
  telegram: async () => {
    const d = new TelegramDescription(await readJson("telegram/bot-api.schema.json"));
    for (const method of [
      "sendMessage",
      "editMessageText",
      "editMessageReplyMarkup",
      "getUpdates",
    ]) {
      d.warm(method);
    }
    return d;
  },
  // The Chat API's discovery document, read as OpenAPI (paths are `/v1/...`).
  googlechat: async () => {
    const d = new OpenApiDescription(
      discoveryToOpenApi(await readJson("googlechat/chat.v1.json")),
      { platform: "googlechat", basePath: /^$/ },
    );
    // The Message schema (cards included) takes a second to compile; a client timeout is 1 s.
    d.warm("POST", "/v1/spaces/s/messages");
    d.warm("PUT", "/v1/spaces/s/messages/m");
    return d;
  },
};

const loaded = new Map<Platform, Promise<Description>>();

/** The description of `platform`, loaded once per process. */
export function description(platform: Platform): Promise<Description> {
  let d = loaded.get(platform);
  if (!d) {
    d = loaders[platform]();
    loaded.set(platform, d);
  }
  return d;
}

/** The platform whose plugin a test file belongs to (`plugins/<platform>/…`), if any. */
export function platformOfFile(path: string): Platform | undefined {
  const name = /[\\/]plugins[\\/]([^\\/]+)[\\/]/.exec(path)?.[1];
  return PLATFORMS.find((p) => p === name);
}

/** The descriptions loaded in this process so far. */
export async function loadedDescriptions(): Promise<Description[]> {
  return Promise.all(loaded.values());
}
