/**
 * The vendored description of each platform, loaded on first use, and how its URLs map onto it.
 * See `vendor/<platform>/README.md` for where each came from.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { discoveryToOpenApi } from "./discovery.ts";
import { OpenApiDescription } from "./openapi.ts";

type Json = Record<string, unknown>;

const vendor = (path: string) => new URL(`../vendor/${path}`, import.meta.url);

async function readJson(path: string): Promise<Json> {
  return JSON.parse(await readFile(vendor(path), "utf8")) as Json;
}

/** Platforms with a vendored description. */
export const PLATFORMS = ["discord", "googlechat", "slack"] as const;
export type Platform = (typeof PLATFORMS)[number];

const loaders: Record<Platform, () => Promise<OpenApiDescription>> = {
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
  // The Chat API's discovery document, read as OpenAPI (paths are `/v1/...`).
  googlechat: async () =>
    new OpenApiDescription(discoveryToOpenApi(await readJson("googlechat/chat.v1.json")), {
      platform: "googlechat",
      basePath: /^$/,
    }),
};

const loaded = new Map<Platform, Promise<OpenApiDescription>>();

/** The description of `platform`, loaded once per process. */
export function description(platform: Platform): Promise<OpenApiDescription> {
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
export async function loadedDescriptions(): Promise<OpenApiDescription[]> {
  return Promise.all(loaded.values());
}
