/**
 * The fake homeserver's client routes besides `/sync`, `/messages` and joins (`fakeSync.ts`):
 * - `GET /versions`, `POST /login` (password, with a `device_id`), `GET /account/whoami`;
 * - `PUT /rooms/{roomId}/send/{type}/{txnId}` (an `m.replace` gets the fault op `edit`) and
 *   `PUT /rooms/{roomId}/redact/{eventId}/{txnId}`, with Synapse's transaction semantics (a
 *   known txnId answers the first event and costs no rate limit), membership (`M_FORBIDDEN`),
 *   the 65,536-byte event limit (`M_TOO_LARGE`), the optional per-user message rate limit
 *   (`429 M_LIMIT_EXCEEDED` with `retry_after_ms` and / or `Retry-After`) and the after-apply
 *   faults;
 * - `GET /rooms/{roomId}/event/{eventId}`, `GET /rooms/{roomId}/state/{type}/{stateKey}`,
 *   `PUT /rooms/{roomId}/typing/{userId}`.
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#put_matrixclientv3roomsroomidsendeventtypetxnid
 *
 * @module
 */
import {
  type FakePlatformServer,
  retryAfterHeader,
  scriptedAnswer,
} from "@herald/plugin-sdk/testing";
import type { FakeEvent, FakeHomeserverCore, FakeMatrixUser } from "./fakeTypes.ts";

/** The send limits of the routes (the homeserver's options, read at every send). */
export type FakeRouteLimits = {
  /**
   * At most `limit` sends, edits and redactions per user per `windowMs`; beyond it
   * `429 M_LIMIT_EXCEEDED` with the wait. @defaultValue none
   */
  rateLimit?: { limit: number; windowMs: number };
  /** How the wait of a 429 is announced. @defaultValue "both" */
  retryAfterVia?: "header" | "body" | "both";
  /** The status of the rate limit's `M_LIMIT_EXCEEDED` (a proxy's 400 / 403). @defaultValue 429 */
  rateLimitStatus?: number;
};

/** Registers the client routes (all but sync's) on `fake`'s server; `clock` gives epoch ms. */
export function registerRoutes(
  fake: FakeHomeserverCore,
  clock: () => number,
  limits: FakeRouteLimits,
): void {
  const store = transactionStore(fake, clock, limits);
  const s = fake.server;
  const v3 = "/_matrix/client/v3";
  const auth = (header: string | undefined) => fake.userOfToken(header?.replace(/^Bearer\s+/i, ""));
  const unknownToken = () =>
    s.error({
      status: 401,
      code: "M_UNKNOWN_TOKEN",
      description: "Invalid access token passed.",
    });
  const notFound = (what: string) =>
    s.error({ status: 404, code: "M_NOT_FOUND", description: `${what} not found` });
  const forbidden = (what: string) =>
    s.error({ status: 403, code: "M_FORBIDDEN", description: what });

  // An m.replace is sent on the send path; give it the op "edit" so faults can target edits.
  s.app.use(`${v3}/rooms/:roomId/send/:type/:txnId`, async (c, next) => {
    if (c.req.method !== "PUT") return next();
    const body = (await c.req.raw
      .clone()
      .json()
      .catch(() => ({}))) as Record<string, unknown>;
    const rel = body["m.relates_to"] as { rel_type?: string } | undefined;
    // [H23] a reaction gets the op "react" (faults can target reactions).
    const op =
      rel?.rel_type === "m.replace"
        ? "edit"
        : rel?.rel_type === "m.annotation"
          ? "react"
          : undefined;
    if (op === undefined) return next();
    const url = new URL(c.req.url);
    url.pathname = `/_fake/${op}${url.pathname}`;
    return s.app.fetch(new Request(url, c.req.raw), c.env);
  });

  s.route("GET", "/_matrix/client/versions", "auth", (c) =>
    c.json({ versions: ["v1.1", "v1.5", "v1.11", "v1.12"], unstable_features: {} }),
  );

  s.route("POST", `${v3}/login`, "auth", async (c) => {
    const body = (await c.req.json()) as {
      type?: string;
      identifier?: { user?: string };
      password?: string;
      device_id?: string;
    };
    const name = body.identifier?.user ?? "";
    const user = fake.users.find(
      (u) =>
        (u.userId === name || u.userId.slice(1).split(":")[0] === name) &&
        u.password === body.password,
    );
    if (body.type !== "m.login.password" || !user) {
      return s.error({
        status: 403,
        code: "M_FORBIDDEN",
        description: "Invalid username or password",
      });
    }
    return c.json({
      user_id: user.userId,
      access_token: user.accessToken,
      device_id: body.device_id ?? user.deviceId,
    });
  });

  s.route("GET", `${v3}/account/whoami`, "auth", (c) => {
    const user = auth(c.req.header("authorization"));
    if (!user) return unknownToken();
    return c.json({ user_id: user.userId, device_id: user.deviceId, is_guest: false });
  });

  const send = async (c: Parameters<Parameters<FakePlatformServer["route"]>[3]>[0]) => {
    const user = auth(c.req.header("authorization"));
    if (!user) return unknownToken();
    const roomId = c.req.param("roomId") as string;
    const type = c.req.param("type") as string;
    const txnId = c.req.param("txnId") as string;
    const room = fake.rooms.rooms.get(roomId);
    if (!room) return notFound(`room ${roomId}`);
    if (!room.members.has(user.userId))
      return forbidden(`User ${user.userId} not in room ${roomId}`);
    const raw = await c.req.text();
    let content: Record<string, unknown>;
    try {
      content = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return s.error({ status: 400, code: "M_NOT_JSON", description: "Content not JSON." });
    }
    if (Buffer.byteLength(raw) + 500 > 65_536) {
      return s.error({ status: 413, code: "M_TOO_LARGE", description: "event too large" });
    }
    const path = `send/${roomId}/${type}/${txnId}`;
    return store(c, user, path, () =>
      fake.rooms.append({
        room_id: roomId,
        type,
        sender: user.userId,
        content,
        txn: { deviceId: user.deviceId, txnId },
      }),
    );
  };
  s.route("PUT", `${v3}/rooms/:roomId/send/:type/:txnId`, "send", send);
  s.route("PUT", `/_fake/edit${v3}/rooms/:roomId/send/:type/:txnId`, "edit", send);
  s.route("PUT", `/_fake/react${v3}/rooms/:roomId/send/:type/:txnId`, "react", send);

  s.route("PUT", `${v3}/rooms/:roomId/redact/:eventId/:txnId`, "delete", async (c) => {
    const user = auth(c.req.header("authorization"));
    if (!user) return unknownToken();
    const roomId = c.req.param("roomId") as string;
    const eventId = c.req.param("eventId") as string;
    const txnId = c.req.param("txnId") as string;
    const room = fake.rooms.rooms.get(roomId);
    if (!room) return notFound(`room ${roomId}`);
    if (!room.members.has(user.userId))
      return forbidden(`User ${user.userId} not in room ${roomId}`);
    const target = fake.rooms.get(eventId);
    if (!target || target.room_id !== roomId) return notFound(`event ${eventId}`);
    if (target.sender !== user.userId) return forbidden("You cannot redact other users' events");
    const content = (await c.req.json().catch(() => ({}))) as Record<string, unknown>;
    return store(c, user, `redact/${roomId}/${eventId}/${txnId}`, () =>
      fake.rooms.append({
        room_id: roomId,
        type: "m.room.redaction",
        sender: user.userId,
        content: { ...content, redacts: eventId },
        redacts: eventId,
        txn: { deviceId: user.deviceId, txnId },
      }),
    );
  });

  s.route("GET", `${v3}/rooms/:roomId/event/:eventId`, "read", (c) => {
    const user = auth(c.req.header("authorization"));
    if (!user) return unknownToken();
    const room = fake.rooms.rooms.get(c.req.param("roomId") as string);
    const event = fake.rooms.get(c.req.param("eventId") as string);
    if (!room || !event || event.room_id !== room.id) return notFound("event");
    if (!room.members.has(user.userId)) return forbidden("not in room");
    return c.json(fake.clientEvent(event, user));
  });

  const state: Parameters<FakePlatformServer["route"]>[3] = (c) => {
    const user = auth(c.req.header("authorization"));
    if (!user) return unknownToken();
    const room = fake.rooms.rooms.get(c.req.param("roomId") as string);
    if (!room) return notFound("room");
    if (!room.members.has(user.userId)) return forbidden("not in room");
    const type = c.req.param("type") as string;
    const key = c.req.param("stateKey") ?? "";
    const state = fake.rooms.events
      .filter((e) => e.room_id === room.id && e.type === type && e.state_key === key)
      .at(-1);
    if (!state) return notFound("Event");
    return c.json(state.content);
  };
  // The room's current state: the newest event of each (type, state_key).
  s.route("GET", `${v3}/rooms/:roomId/state`, "state", (c) => {
    const user = auth(c.req.header("authorization"));
    if (!user) return unknownToken();
    const room = fake.rooms.rooms.get(c.req.param("roomId") as string);
    if (!room) return notFound("room");
    if (!room.members.has(user.userId)) return forbidden("not in room");
    const current = new Map<string, FakeEvent>();
    for (const e of fake.rooms.events) {
      if (e.room_id === room.id && e.state_key !== undefined) {
        current.set(JSON.stringify([e.type, e.state_key]), e);
      }
    }
    return c.json([...current.values()].map((e) => fake.clientEvent(e, user)));
  });
  for (const p of ["/:type", "/:type/", "/:type/:stateKey"])
    s.route("GET", `${v3}/rooms/:roomId/state${p}`, "state", state);

  s.route("PUT", `${v3}/rooms/:roomId/typing/:userId`, "typing", async (c) => {
    const user = auth(c.req.header("authorization"));
    if (!user) return unknownToken();
    if (user.userId !== (c.req.param("userId") as string))
      return forbidden("typing as someone else");
    const room = fake.rooms.rooms.get(c.req.param("roomId") as string);
    if (!room) return notFound("room");
    const body = (await c.req.json()) as { typing?: boolean; timeout?: number };
    fake.typing.set(
      `${room.id}|${user.userId}`,
      body.typing ? clock() + (body.timeout ?? 30_000) : 0,
    );
    return c.json({});
  });
}

/**
 * Stores a send or redaction under its transaction id, then answers `{ event_id }` (or the
 * next after-apply fault); a new txnId over the rate limit answers the 429 and stores nothing.
 */
function transactionStore(fake: FakeHomeserverCore, clock: () => number, limits: FakeRouteLimits) {
  const sent = new Map<string, number[]>();

  /** Enforces the optional per-user message rate limit; the wait in ms when over it. */
  const overLimit = (user: string): number | undefined => {
    const limit = limits.rateLimit;
    if (!limit) return undefined;
    const now = clock();
    const recent = (sent.get(user) ?? []).filter((t) => now - t < limit.windowMs);
    sent.set(user, recent);
    if (recent.length < limit.limit) {
      recent.push(now);
      return undefined;
    }
    return Math.max(1, (recent[0] ?? now) + limit.windowMs - now);
  };

  const rateLimited = (retryAfterMs: number): Response => {
    const via = limits.retryAfterVia ?? "both";
    return fake.server.error(
      {
        status: limits.rateLimitStatus ?? 429,
        code: "M_LIMIT_EXCEEDED",
        description: "Too Many Requests",
        ...(via !== "header" ? { retryAfterMs } : {}),
      },
      via !== "body" ? { "retry-after": retryAfterHeader(retryAfterMs) } : {},
    );
  };

  return (
    c: { json: (body: unknown) => Response },
    user: FakeMatrixUser,
    path: string,
    make: () => FakeEvent,
  ): Response => {
    const key = { user: user.userId, device: user.deviceId, path };
    // A replay of a known txnId is answered from the table and costs no rate limit.
    const wait = fake.rooms.knownTransaction(key) ? undefined : overLimit(user.userId);
    if (wait !== undefined) return rateLimited(wait);
    const { event } = fake.rooms.transaction(key, make);
    const fault = fake.afterApply.shift();
    if (fault) {
      return scriptedAnswer(
        new Response(fault.body, {
          status: fault.status,
          headers: { "content-type": fault.contentType },
        }),
      );
    }
    return c.json({ event_id: event.event_id });
  };
}
