/**
 * The fake homeserver's content repository and relations ([H23]), as the spec describes them:
 * `POST /_matrix/media/v3/upload` (raw body, `Content-Type`, `?filename=`) → `{ content_uri }`;
 * authenticated download `GET /_matrix/client/v1/media/download/{serverName}/{mediaId}`; a body
 * over `maxUploadBytes` → 413 `M_TOO_LARGE`; and
 * `GET /_matrix/client/v1/rooms/{roomId}/relations/{eventId}/{relType}[/{eventType}]` (redacted
 * events left out, newest first).
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#content-repository,
 * https://spec.matrix.org/latest/client-server-api/#get_matrixclientv1roomsroomidrelationseventidreltypeeventtype
 *
 * @module
 */
import type { FakeHomeserverCore } from "./fakeTypes.ts";

/** One stored upload. */
export type FakeUpload = { bytes: Uint8Array; contentType: string; filename?: string };

/** The fake's content repository: `mxc://fake.server/<id>` → upload. */
export class FakeMedia {
  readonly uploads = new Map<string, FakeUpload>();
  /** The homeserver's `m.upload.size`. */
  maxUploadBytes = 52_428_800;
  #next = 0;

  store(upload: FakeUpload): string {
    this.#next += 1;
    const uri = `mxc://fake.server/media${this.#next}`;
    this.uploads.set(uri, upload);
    return uri;
  }
}

/** Registers the media and relations routes. */
export function registerMedia(fake: FakeHomeserverCore, media: FakeMedia): void {
  const s = fake.server;
  const auth = (header: string | undefined) => fake.userOfToken(header?.replace(/^Bearer\s+/i, ""));
  const unknownToken = () =>
    s.error({ status: 401, code: "M_UNKNOWN_TOKEN", description: "Invalid access token passed." });

  s.route("POST", "/_matrix/media/v3/upload", "upload", async (c) => {
    if (!auth(c.req.header("authorization"))) return unknownToken();
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    if (bytes.byteLength > media.maxUploadBytes) {
      return s.error({ status: 413, code: "M_TOO_LARGE", description: "Upload too large" });
    }
    const filename = c.req.query("filename");
    const uri = media.store({
      bytes,
      contentType: c.req.header("content-type") ?? "application/octet-stream",
      ...(filename !== undefined ? { filename } : {}),
    });
    return c.json({ content_uri: uri });
  });

  s.route("GET", "/_matrix/client/v1/media/download/:serverName/:mediaId", "download", (c) => {
    if (!auth(c.req.header("authorization"))) return unknownToken();
    const uri = `mxc://${c.req.param("serverName")}/${c.req.param("mediaId")}`;
    const upload = media.uploads.get(uri);
    if (!upload) {
      return s.error({ status: 404, code: "M_NOT_FOUND", description: "Not found" });
    }
    return new Response(upload.bytes, { headers: { "content-type": upload.contentType } });
  });

  const relations: Parameters<typeof s.route>[3] = (c) => {
    const user = auth(c.req.header("authorization"));
    if (!user) return unknownToken();
    const roomId = c.req.param("roomId");
    const eventId = c.req.param("eventId");
    const relType = c.req.param("relType");
    const eventType = c.req.param("eventType");
    const room = fake.rooms.rooms.get(roomId as string);
    if (!room?.members.has(user.userId)) {
      return s.error({ status: 404, code: "M_NOT_FOUND", description: "Event not found" });
    }
    const related = fake.rooms.events.filter((e) => {
      const rel = e.content["m.relates_to"] as { rel_type?: unknown; event_id?: unknown };
      return (
        e.room_id === roomId &&
        (eventType === undefined || e.type === eventType) &&
        !e.redactedBy &&
        rel?.rel_type === relType &&
        rel?.event_id === eventId
      );
    });
    const limit = Math.max(1, Number(c.req.query("limit") ?? 50));
    const from = Number(c.req.query("from") ?? 0);
    const newestFirst = [...related].reverse();
    const page = newestFirst.slice(from, from + limit);
    return c.json({
      chunk: page.map((e) => fake.clientEvent(e, user)),
      ...(from + limit < newestFirst.length ? { next_batch: String(from + limit) } : {}),
    });
  };
  s.route("GET", "/_matrix/client/v1/rooms/:roomId/relations/:eventId/:relType", "read", relations);
  s.route(
    "GET",
    "/_matrix/client/v1/rooms/:roomId/relations/:eventId/:relType/:eventType",
    "read",
    relations,
  );
}
