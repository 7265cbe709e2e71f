/**
 * What the send path needs of encryption: whether a room is encrypted, the engine to encrypt
 * with, and the clear content of an event read back (edits check the edit the homeserver shows).
 *
 * A room is encrypted when the account's receiver saw its `m.room.encryption` state
 * ({@link EncryptedRooms}) or — with encryption configured — when its state says so (read once
 * per room and process, `MatrixE2ee.isEncrypted`). Without encryption configured an encrypted
 * room fails with {@link MatrixEncryptedRoomError}, as before.
 *
 * Files in encrypted rooms (encrypted `file` info instead of `url`) are not built:
 * {@link assertNoFiles} throws `NotImplementedError`.
 *
 * @module
 */
import { type MessageSendContext, NotImplementedError } from "@herald/plugin-sdk/channel-message";
import type { MatrixE2ee } from "./e2ee.ts";
import { MatrixEncryptedRoomError } from "./errors.ts";
import type { EncryptedRooms } from "./rooms.ts";

/** Opens (or shares) the account's encryption engine; absent when encryption is not configured. */
export type E2eeRef = () => Promise<MatrixE2ee>;

/** The send side's view of encryption for one account. */
export type RoomCrypto = {
  /**
   * The engine to encrypt `room`'s events with, or `undefined` for a room that is not encrypted.
   * @throws MatrixEncryptedRoomError when the room is encrypted and encryption is not configured.
   */
  forRoom(ctx: Pick<MessageSendContext, "signal">, room: string): Promise<MatrixE2ee | undefined>;
  /**
   * The clear content of an event read from the homeserver: its own for a plain event, the
   * decrypted one for an `m.room.encrypted` event (`undefined` when it cannot be decrypted).
   */
  clearContent(
    room: string,
    event: { type?: unknown; content?: unknown } | undefined,
  ): Promise<Record<string, unknown> | undefined>;
};

/** Builds the send side's view of encryption. */
export function createRoomCrypto(rooms: EncryptedRooms, e2ee: E2eeRef | undefined): RoomCrypto {
  return {
    async forRoom(ctx, room) {
      if (!e2ee) {
        if (rooms.isEncrypted(room)) throw new MatrixEncryptedRoomError(room);
        return undefined;
      }
      const engine = await e2ee();
      if (rooms.isEncrypted(room) || (await engine.isEncrypted(room, ctx.signal))) return engine;
      return undefined;
    },
    async clearContent(room, event) {
      if (event === undefined) return undefined;
      const content = event.content as Record<string, unknown> | undefined;
      if (event.type !== "m.room.encrypted") return content;
      if (!e2ee) return undefined;
      const clear = await (await e2ee()).decrypt(room, event as Record<string, unknown>);
      return clear.ok ? clear.content : undefined;
    },
  };
}

/**
 * @throws NotImplementedError when the message carries an attachment other than a link: files
 *   in encrypted rooms (`m.file` with encrypted `file` info) are not built yet.
 */
export function assertNoFiles(ctx: Pick<MessageSendContext, "message">, room: string): void {
  const files = (ctx.message.attachments ?? []).filter((a) => a.kind !== "link");
  if (files.length === 0) return;
  throw new NotImplementedError(
    "Matrix attachments in encrypted rooms",
    `room ${room} is encrypted; encrypted attachments (file info instead of url) are not built yet — send a link instead`,
  );
}
