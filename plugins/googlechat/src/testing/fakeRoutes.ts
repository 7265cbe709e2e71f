/**
 * The Chat API routes of the fake (`spaces.messages.create / get / update / patch / delete`,
 * `spaces.list`), with the platform's semantics:
 *
 * - **requestId**: a repeated `requestId` in a space returns the stored message unchanged,
 *   whatever the new body says (from another app it is a 400) — for as long as the fake
 *   remembers it (`requestIdRetentionMs`; Google documents no retention, PLATFORMS.md §9). A
 *   client-assigned `messageId` must be `client-[a-z0-9-]` (≤ 63) and unique in the space
 *   (spaces.messages.create, "messageId"): taken — by another request, or by this one once its
 *   `requestId` is forgotten — it is a 409 `ALREADY_EXISTS` in the AIP-193 shape
 *   `{ error: { code: 409, message, status: "ALREADY_EXISTS" } }` (C41).
 * - **threads**: `thread.name` must be `spaces/*\/threads/*` (a message name is a 400
 *   `INVALID_ARGUMENT`, C35); a thread (name or key) without `messageReplyOption` starts a new
 *   thread; `REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD` joins it or starts a new one;
 *   `REPLY_MESSAGE_OR_FAIL` answers 404 when it is missing.
 * - **lists**: `spaces.list` and `spaces.messages.list` (time filter, order, pages) in
 *   `fakeLists.ts`.
 * - **limits**: `text` ≤ 4096 characters (400 with the platform's own message); writes per
 *   space per second beyond the configured limit answer 429 `RESOURCE_EXHAUSTED` **without**
 *   `Retry-After` (C37); an app may only update and delete its own messages (403).
 *
 * @module
 */
import type { Context, FakePlatformEnv, FakePlatformServer } from "@herald/plugin-sdk/testing";
import { registerFeatureRoutes } from "./fakeFeatures.ts";
import { registerListRoutes } from "./fakeLists.ts";
import type { FakeChatStore, FakeChatUser, FakeStoredMessage } from "./fakeStore.ts";
import { googleError } from "./fakeWire.ts";

const THREAD_NAME = /^spaces\/[^/]+\/threads\/[^/]+$/;
const CLIENT_ID = /^client-[a-z0-9-]{1,56}$/;
const TEXT_LIMIT = 4096;

/** An answer the fake gives after it stored a create (C37's "500 after the fake stored it"). */
export type AfterStoreFault = { status: number; message?: string };

/** What the routes need besides the store. */
export type FakeRouteDeps = {
  store: FakeChatStore;
  /** Bearer token → the app it authenticates. */
  apps: ReadonlyMap<string, FakeChatUser>;
  /** Message writes per space per second; undefined = no limit. */
  writesPerSecondPerSpace(): number | undefined;
  /** How long a `requestId` is remembered, in ms; undefined = forever (C41). */
  requestIdRetentionMs(): number | undefined;
  /** Epoch-ms clock of the retention. */
  clock(): number;
  /** Takes the next after-store fault of creates, if one is due. */
  takeAfterStore(): AfterStoreFault | undefined;
  /** Called with every create request that passed authentication, before it is applied. */
  onCreate(request: FakeCreateRequest): void;
  /** Called with every authenticated update request (name and `updateMask`). */
  onUpdate(request: { name: string; updateMask?: string }): void;
};

/** A create request as the fake received it (for wire-level assertions such as C21's). */
export type FakeCreateRequest = {
  space: string;
  requestId?: string;
  messageId?: string;
  messageReplyOption?: string;
  body: Record<string, unknown>;
};

type Ctx = Context<FakePlatformEnv>;

/** Registers the routes on `server`. */
export function registerChatRoutes(server: FakePlatformServer, deps: FakeRouteDeps): void {
  const { store } = deps;
  const writes = new Map<string, number[]>();
  /** When each `space\nrequestId` was first used (the retention starts there). */
  const requestSeen = new Map<string, number>();
  /** The message an earlier create with `requestId` made, while the fake still remembers it. */
  const remembered = (space: string, requestId: string): FakeStoredMessage | undefined => {
    const key = `${space}\n${requestId}`;
    const retention = deps.requestIdRetentionMs();
    const seen = requestSeen.get(key);
    if (retention !== undefined && seen !== undefined && deps.clock() - seen >= retention) {
      return undefined;
    }
    return store.byRequest(space, requestId);
  };

  const appOf = (c: Ctx): FakeChatUser | undefined => {
    const header = c.req.header("authorization") ?? "";
    const m = /^Bearer (.+)$/.exec(header);
    return m ? deps.apps.get(m[1] ?? "") : undefined;
  };
  const unauthenticated = () =>
    googleError(
      401,
      "Request had invalid authentication credentials. Expected OAuth 2 access token.",
    );

  /** Counts a write; false when it is over the space's per-second limit. */
  const admit = (space: string): boolean => {
    const limit = deps.writesPerSecondPerSpace();
    if (limit === undefined) return true;
    const now = Date.now();
    const recent = (writes.get(space) ?? []).filter((t) => now - t < 1_000);
    if (recent.length >= limit) {
      writes.set(space, recent);
      return false;
    }
    recent.push(now);
    writes.set(space, recent);
    return true;
  };
  const exhausted = (space: string) =>
    googleError(
      429,
      `Resource has been exhausted (e.g. check quota). Quota exceeded for quota metric 'Write requests' and limit 'Write requests per space per second' of service 'chat.googleapis.com' for ${space}.`,
    );

  const messageOf = (c: Ctx): string =>
    `spaces/${c.req.param("space")}/messages/${c.req.param("message")}`;

  server.route("POST", "/v1/spaces/:space/messages", "send", async (c) => {
    const app = appOf(c);
    if (!app) return unauthenticated();
    const space = `spaces/${c.req.param("space")}`;
    if (!store.spaces.has(space)) return googleError(404, `Space ${space} not found.`);
    const body = (await c.req.json().catch(() => ({}))) as Record<string, unknown>;
    const requestId = c.req.query("requestId");
    const messageId = c.req.query("messageId");
    const option = c.req.query("messageReplyOption") ?? "MESSAGE_REPLY_OPTION_UNSPECIFIED";
    deps.onCreate({
      space,
      body,
      ...(requestId !== undefined ? { requestId } : {}),
      ...(messageId !== undefined ? { messageId } : {}),
      ...(c.req.query("messageReplyOption") !== undefined
        ? { messageReplyOption: c.req.query("messageReplyOption") as string }
        : {}),
    });
    if (requestId) {
      const earlier = remembered(space, requestId);
      // Reusing a requestId as another authenticated user is an error (spaces.messages.create).
      if (earlier && earlier.sender.name !== app.name) {
        return googleError(
          400,
          `Request ID ${requestId} was already used by another caller in ${space}.`,
        );
      }
      if (earlier) return c.json(store.toJson(earlier));
    }
    if (messageId !== undefined) {
      if (!CLIENT_ID.test(messageId) || messageId.length > 63) {
        return googleError(
          400,
          `Invalid message ID "${messageId}": it must start with client- and contain only lowercase letters, numbers and hyphens (at most 63 characters).`,
        );
      }
      if (store.find(`${space}/messages/${messageId}`)) {
        return googleError(409, `Message with ID ${messageId} already exists in ${space}.`);
      }
    }
    const text = typeof body.text === "string" ? body.text : "";
    const cardsV2 = Array.isArray(body.cardsV2) ? body.cardsV2 : undefined;
    if (!text && !cardsV2?.length) return googleError(400, "Message cannot be empty.");
    if (text.length > TEXT_LIMIT) {
      return googleError(
        400,
        "Maximum length of the field is 4096. Field: apps.dynamite.CreateMessageInfo.text_body",
      );
    }
    const thread = body.thread as { name?: string; threadKey?: string } | undefined;
    if (thread?.name !== undefined && !THREAD_NAME.test(thread.name)) {
      return googleError(400, `Invalid thread resource name: ${thread.name}`);
    }
    let threadName: string | undefined;
    if (thread && option !== "MESSAGE_REPLY_OPTION_UNSPECIFIED") {
      const known = thread.name ? store.threads.get(thread.name) === space : false;
      if (thread.name && known) threadName = thread.name;
      else if (thread.threadKey) threadName = store.threadOfKey(space, thread.threadKey);
      else if (option === "REPLY_MESSAGE_OR_FAIL") {
        return googleError(404, `Thread ${thread.name} not found.`);
      }
    }
    const quotedMeta = body.quotedMessageMetadata as
      | { name?: string; lastUpdateTime?: string }
      | undefined;
    let quoted: FakeStoredMessage | undefined;
    if (quotedMeta) {
      quoted = quotedMeta.name ? store.live(quotedMeta.name) : undefined;
      const at = quoted ? (quoted.lastUpdateTime ?? quoted.createTime) : undefined;
      if (!quoted || quoted.space !== space)
        return googleError(400, `Quoted message ${quotedMeta.name} not found.`);
      if (quotedMeta.lastUpdateTime !== at) {
        return googleError(
          400,
          "quotedMessageMetadata.lastUpdateTime does not match the quoted message.",
        );
      }
      if (!quoted.root && quoted.thread !== (threadName ?? "")) {
        return googleError(400, "A message reply can only be quoted within its own thread.");
      }
    }
    // [H23] privateMessageViewer: app authentication only (the fake's callers are apps), and
    // not in a DM-less context check here; the viewer must be a user name.
    const viewer = (body.privateMessageViewer as { name?: unknown } | undefined)?.name;
    if (viewer !== undefined && (typeof viewer !== "string" || !/^users\/[^/]+$/.test(viewer))) {
      return googleError(400, `Invalid privateMessageViewer.name: ${String(viewer)}`);
    }
    const privateViewer = viewer as string | undefined;
    if (!admit(space)) return exhausted(space);
    if (requestId) requestSeen.set(`${space}\n${requestId}`, deps.clock());
    const stored = store.add({
      space,
      thread: threadName ?? store.newThread(space),
      sender: app,
      text,
      ...(messageId ? { clientAssignedMessageId: messageId } : {}),
      ...(requestId ? { requestId } : {}),
      ...(cardsV2 ? { cardsV2 } : {}),
      ...(typeof body.fallbackText === "string" ? { fallbackText: body.fallbackText } : {}),
      ...(typeof body.markupSyntax === "string" ? { markupSyntax: body.markupSyntax } : {}),
      ...(quoted ? { quoted: quoted.name } : {}),
      ...(privateViewer ? { privateViewer } : {}),
    });
    const late = deps.takeAfterStore();
    if (late) return googleError(late.status, late.message ?? "Internal error encountered.");
    return c.json(store.toJson(stored));
  });

  server.route("GET", "/v1/spaces/:space/messages/:message", "read", (c) => {
    if (!appOf(c)) return unauthenticated();
    const m = store.live(messageOf(c));
    return m ? c.json(store.toJson(m)) : googleError(404, `Message ${messageOf(c)} not found.`);
  });

  const update = async (c: Ctx) => {
    const app = appOf(c);
    if (!app) return unauthenticated();
    const mask = c.req.query("updateMask");
    deps.onUpdate({ name: messageOf(c), ...(mask !== undefined ? { updateMask: mask } : {}) });
    if (!mask) return googleError(400, "updateMask is required.");
    const m = store.live(messageOf(c));
    if (!m) return googleError(404, `Message ${messageOf(c)} not found.`);
    if (m.sender.name !== app.name)
      return googleError(403, "The caller can only update its own messages.");
    const body = (await c.req.json().catch(() => ({}))) as Record<string, unknown>;
    const fields = mask.split(",").map((f) => f.trim());
    for (const f of fields) {
      if (!["text", "cards_v2", "cardsV2", "fallback_text"].includes(f)) {
        return googleError(400, `Invalid update mask field: ${f}`);
      }
    }
    const text = fields.includes("text") && typeof body.text === "string" ? body.text : undefined;
    if (text !== undefined && text.length > TEXT_LIMIT) {
      return googleError(
        400,
        "Maximum length of the field is 4096. Field: apps.dynamite.CreateMessageInfo.text_body",
      );
    }
    if (!admit(m.space)) return exhausted(m.space);
    if (text !== undefined) store.state.edit(m.id, text);
    if (fields.includes("cards_v2") || fields.includes("cardsV2")) {
      m.cardsV2 = Array.isArray(body.cardsV2) ? body.cardsV2 : [];
    }
    m.lastUpdateTime = new Date().toISOString();
    return c.json(store.toJson(m));
  };
  server.route("PUT", "/v1/spaces/:space/messages/:message", "edit", update);
  server.route("PATCH", "/v1/spaces/:space/messages/:message", "edit", update);

  server.route("DELETE", "/v1/spaces/:space/messages/:message", "delete", (c) => {
    const app = appOf(c);
    if (!app) return unauthenticated();
    const m = store.live(messageOf(c));
    if (!m) return googleError(404, `Message ${messageOf(c)} not found.`);
    if (m.sender.name !== app.name)
      return googleError(403, "The caller can only delete its own messages.");
    if (!admit(m.space)) return exhausted(m.space);
    store.state.delete(m.id);
    return c.json({});
  });

  registerListRoutes(server, { store, appOf });
  registerFeatureRoutes(server, { store, appOf });
}
