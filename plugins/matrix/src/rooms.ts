/**
 * Which rooms are end-to-end encrypted. An account must never send plaintext into an encrypted
 * room (the homeserver would accept it): with `encryption` configured its events there are
 * encrypted (`roomCrypto.ts`), without it a room with an `m.room.encryption` state event fails
 * with `MatrixEncryptedRoomError` (docs/channels/matrix.md, "Encryption").
 *
 * The `/sync` receiver of the account marks a room when its state (initial sync) or its timeline
 * turns encryption on; the send path checks the mark without I/O — a probe of the room state
 * before every first send would delay that send behind an extra round trip (with `encryption`
 * configured the engine does read the state once per unmarked room). Encryption cannot be
 * turned off in a room, so a mark is final. An adapter running without its receiver cannot tell
 * (the docs say so).
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#mroomencryption
 *
 * @module
 */

/** The rooms one account has seen turn encryption on. */
export class EncryptedRooms {
  readonly #encrypted = new Set<string>();

  /** Records that `room` is encrypted (its `m.room.encryption` state was seen). */
  markEncrypted(room: string): void {
    this.#encrypted.add(room);
  }

  /** Whether `room` is known to be encrypted. */
  isEncrypted(room: string): boolean {
    return this.#encrypted.has(room);
  }
}
