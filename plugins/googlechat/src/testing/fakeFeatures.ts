/**
 * The fake Chat API's [H23] routes, as the published API describes them:
 * `GET /v1/spaces:findDirectMessage?name=users/U` (the DM between that user and the calling app;
 * 404 when there is none — with app authentication an app cannot create one, `spaces.setup`
 * needs user authentication) and `GET /v1/media/{resourceName}?alt=media` (`media.download` of an
 * attachment's `attachmentDataRef.resourceName`, app authentication allowed).
 *
 * Source: https://developers.google.com/workspace/chat/api/reference/rest/v1/spaces/findDirectMessage,
 * https://developers.google.com/workspace/chat/api/reference/rest/v1/media/download
 *
 * @module
 */
import type { Context, FakePlatformEnv, FakePlatformServer } from "@herald/plugin-sdk/testing";
import type { FakeChatStore, FakeChatUser } from "./fakeStore.ts";
import { googleError } from "./fakeWire.ts";

type Ctx = Context<FakePlatformEnv>;

/** A file a user attached (what `media.download` serves). */
export type FakeChatFile = { bytes: Uint8Array; contentType: string };

/** The DMs (user name → space name) and uploaded files (resource name → file) of the fake. */
export const fakeDirectSpaces = new WeakMap<FakeChatStore, Map<string, string>>();
export const fakeFiles = new WeakMap<FakeChatStore, Map<string, FakeChatFile>>();

/** The DM map of a store (created on first use). */
export function directSpacesOf(store: FakeChatStore): Map<string, string> {
  const map = fakeDirectSpaces.get(store) ?? new Map<string, string>();
  fakeDirectSpaces.set(store, map);
  return map;
}

/** The file map of a store (created on first use). */
export function filesOf(store: FakeChatStore): Map<string, FakeChatFile> {
  const map = fakeFiles.get(store) ?? new Map<string, FakeChatFile>();
  fakeFiles.set(store, map);
  return map;
}

/** Registers the routes. */
export function registerFeatureRoutes(
  server: FakePlatformServer,
  deps: { store: FakeChatStore; appOf(c: Ctx): FakeChatUser | undefined },
): void {
  const { store } = deps;
  const unauthenticated = () =>
    googleError(
      401,
      "Request had invalid authentication credentials. Expected OAuth 2 access token.",
    );

  server.route("GET", "/v1/:verb{spaces:findDirectMessage}", "read", (c) => {
    if (!deps.appOf(c)) return unauthenticated();
    const user = c.req.query("name") ?? "";
    if (!/^users\/[^/]+$/.test(user))
      return googleError(400, `Invalid user resource name: ${user}`);
    const space = directSpacesOf(store).get(user);
    if (!space) return googleError(404, `Direct message space with ${user} not found.`);
    return c.json(store.spaceJson(space));
  });

  server.route("GET", "/v1/media/:resource{.+}", "download", (c) => {
    if (!deps.appOf(c)) return unauthenticated();
    const resource = decodeURIComponent(c.req.param("resource") as string);
    const file = filesOf(store).get(resource);
    if (!file) return googleError(404, `Attachment ${resource} not found.`);
    return new Response(file.bytes, { headers: { "content-type": file.contentType } });
  });
}
