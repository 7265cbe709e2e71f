/**
 * The fake's list routes, as the Chat API describes them:
 *
 * - `spaces.list` (`GET /v1/spaces`): the spaces the calling app is a member of, `pageSize`
 *   (default 100, at most 1000) and `pageToken`, `nextPageToken` while more remain.
 * - `spaces.messages.list` (`GET /v1/spaces/{space}/messages`): the space's messages with
 *   `filter` — `createTime > "<RFC 3339>"` and / or `createTime < "…"`, joined with `AND`
 *   (anything else is a 400 `INVALID_ARGUMENT`) — `orderBy` `createTime asc` (the default) or
 *   `createTime desc`, `pageSize` (default 25, at most 1000), `pageToken`; deleted messages
 *   only with `showDeleted`.
 *
 * Sources: developers.google.com/workspace/chat/api/reference/rest/v1/spaces/list,
 * …/spaces.messages/list.
 *
 * @module
 */
import type { Context, FakePlatformEnv, FakePlatformServer } from "@herald/plugin-sdk/testing";
import type { FakeChatStore, FakeChatUser } from "./fakeStore.ts";
import { googleError } from "./fakeWire.ts";

type Ctx = Context<FakePlatformEnv>;

/** An opaque page token of the fake (an offset). */
const token = (offset: number) => Buffer.from(`o:${offset}`).toString("base64url");
const offsetOf = (value: string | undefined): number | undefined => {
  if (!value) return 0;
  const n = Number(Buffer.from(value, "base64url").toString().slice(2));
  return Number.isInteger(n) && n >= 0 ? n : undefined;
};

/** `createTime` bounds of a filter, or the error text. */
export function parseTimeFilter(
  filter: string | undefined,
): { after?: number; before?: number } | string {
  if (!filter?.trim()) return {};
  const bounds: { after?: number; before?: number } = {};
  for (const part of filter.split(/\s+AND\s+/)) {
    const m = /^\s*create_?[tT]ime\s*([<>])\s*"([^"]+)"\s*$/.exec(part);
    const at = m ? Date.parse(m[2] ?? "") : Number.NaN;
    if (!m || !Number.isFinite(at)) return `Invalid filter: ${part.trim()}`;
    if (m[1] === ">") bounds.after = at;
    else bounds.before = at;
  }
  return bounds;
}

/** Registers `spaces.list` and `spaces.messages.list` on `server`. */
export function registerListRoutes(
  server: FakePlatformServer,
  deps: { store: FakeChatStore; appOf(c: Ctx): FakeChatUser | undefined },
): void {
  const { store } = deps;
  const unauthenticated = () =>
    googleError(
      401,
      "Request had invalid authentication credentials. Expected OAuth 2 access token.",
    );
  const pageSize = (c: Ctx, fallback: number) =>
    Math.min(Math.max(Number(c.req.query("pageSize") ?? fallback) || fallback, 1), 1_000);

  server.route("GET", "/v1/spaces", "probe", (c) => {
    const app = deps.appOf(c);
    if (!app) return unauthenticated();
    const offset = offsetOf(c.req.query("pageToken"));
    if (offset === undefined) return googleError(400, "Invalid page token.");
    const size = pageSize(c, 100);
    const all = [...store.spaces.values()].filter(
      (s) => s.apps === undefined || s.apps.includes(app.name),
    );
    const more = offset + size < all.length;
    return c.json({
      spaces: all.slice(offset, offset + size).map((s) => store.spaceJson(s.name)),
      ...(more ? { nextPageToken: token(offset + size) } : {}),
    });
  });

  server.route("GET", "/v1/spaces/:space/messages", "list", (c) => {
    const app = deps.appOf(c);
    if (!app) return unauthenticated();
    const space = `spaces/${c.req.param("space")}`;
    const known = store.spaces.get(space);
    if (!known) return googleError(404, `Space ${space} not found.`);
    if (known.apps !== undefined && !known.apps.includes(app.name))
      return googleError(403, "The caller does not have permission");
    const bounds = parseTimeFilter(c.req.query("filter"));
    if (typeof bounds === "string") return googleError(400, bounds);
    const order = (c.req.query("orderBy") ?? "createTime asc").trim().toLowerCase();
    if (order !== "createtime asc" && order !== "createtime desc" && order !== "create_time asc")
      return googleError(400, `Invalid orderBy: ${order}`);
    const offset = offsetOf(c.req.query("pageToken"));
    if (offset === undefined) return googleError(400, "Invalid page token.");
    const size = pageSize(c, 25);
    const all = store
      .messages({ space, includeDeleted: c.req.query("showDeleted") === "true" })
      .filter((m) => {
        const at = Date.parse(m.createTime);
        return (
          (bounds.after === undefined || at > bounds.after) &&
          (bounds.before === undefined || at < bounds.before)
        );
      })
      .sort((a, b) => Date.parse(a.createTime) - Date.parse(b.createTime));
    if (order.endsWith("desc")) all.reverse();
    const more = offset + size < all.length;
    return c.json({
      messages: all.slice(offset, offset + size).map((m) => store.toJson(m)),
      ...(more ? { nextPageToken: token(offset + size) } : {}),
    });
  });
}
