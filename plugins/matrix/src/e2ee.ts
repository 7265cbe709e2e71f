/**
 * End-to-end encryption of one account (docs/channels/matrix.md, "Encryption"): matrix-js-sdk's
 * **Rust crypto** (`MatrixClient.initRustCrypto`, `@matrix-org/matrix-sdk-crypto-wasm`) on the
 * account's client, with its store persisted by {@link CryptoStoreFile}. No cryptography is done
 * here: this module only feeds the SDK what herald's own `/sync` loop receives and asks it to
 * encrypt and decrypt.
 *
 * - `/sync`: the to-device events, `device_lists`, `device_one_time_keys_count` and
 *   `device_unused_fallback_key_types` go to the SDK's `processSyncChanges` (room keys arrive
 *   here), `m.room.encryption` state configures the room, then the SDK's outgoing requests run
 *   (`/keys/upload`, `/keys/query`, `/keys/claim`, `/sendToDevice`) and the store is saved —
 *   before the next `/sync` acknowledges the to-device events.
 * - sending: the SDK shares the room key with every device of the room's joined members
 *   (`GET /rooms/{roomId}/joined_members`), **unverified devices included** (trust on first use:
 *   the SDK's default `AllDevicesIsolationMode` without the unverified-device blacklist), then
 *   encrypts; the store is saved before the event is sent (a Megolm index is never reused).
 * - receiving: {@link MatrixE2ee.decrypt} answers the clear event or why not.
 *
 * The bot does no interactive verification and no cross-signing: people see its device as
 * "unverified" (Element shows a grey or red shield on its messages) and can still read them.
 *
 * One engine per store path in a process ({@link openE2ee}): the adapter and the receiver of one
 * account share it.
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#end-to-end-encryption
 *
 * @module
 */
import { MatrixEvent } from "matrix-js-sdk";
import type { MatrixHttp } from "./client.ts";
import { seg } from "./client.ts";
import { CryptoStoreFile } from "./cryptoStore.ts";

/** The encryption-related parts of one `/sync` answer. */
export type SyncCryptoParts = {
  toDevice?: unknown[];
  deviceLists?: { changed?: string[]; left?: string[] };
  oneTimeKeysCounts?: Record<string, number>;
  unusedFallbackKeyTypes?: string[];
};

/** The outcome of one decryption. */
export type DecryptResult =
  | { ok: true; type: string; content: Record<string, unknown>; sessionId?: string }
  | {
      ok: false;
      /** matrix-js-sdk's `DecryptionFailureCode`. */
      code: string;
      message: string;
      /** The room key may still arrive (waiting makes sense). */
      retryable: boolean;
    };

/** Failure codes after which the room key may still arrive. */
const RETRYABLE = new Set([
  "MEGOLM_UNKNOWN_INBOUND_SESSION_ID",
  "OLM_UNKNOWN_MESSAGE_INDEX",
  "UNKNOWN_SENDER_DEVICE",
]);

/** The part of matrix-js-sdk's `RustCrypto` this module calls (its sync-loop interface). */
type RustCryptoBackend = {
  processSyncChanges(args: {
    toDeviceEvents: unknown[];
    deviceLists?: { changed?: string[]; left?: string[] };
    oneTimeKeysCounts?: Record<string, number>;
    unusedFallbackKeys?: Set<string>;
  }): Promise<unknown[]>;
  onCryptoEvent(room: RoomLike, event: MatrixEvent): Promise<void>;
  onRoomMembership(
    event: MatrixEvent,
    member: { userId: string; membership: string },
    oldMembership?: string,
  ): void;
  onSyncCompleted(state: Record<string, unknown>): void;
  encryptEvent(event: MatrixEvent, room: RoomLike): Promise<void>;
  decryptEvent(event: MatrixEvent): Promise<{ clearEvent: { type?: string; content?: unknown } }>;
  isEncryptionEnabledInRoom(roomId: string): Promise<boolean>;
  outgoingRequestsManager?: { doProcessOutgoingRequests(): Promise<void> };
  stop(): void;
};

/**
 * What the SDK's room encryptor reads of a room (`RoomEncryptor`): the members to share the
 * room key with and the history visibility.
 */
type RoomLike = {
  roomId: string;
  /** Members known without I/O (tracked at once): none here, they are read at first encryption. */
  getJoinedMembers(): Array<{ userId: string }>;
  getEncryptionTargetMembers(): Promise<Array<{ userId: string; membership: string }>>;
  shouldEncryptForInvitedMembers(): boolean;
  getHistoryVisibility(): string;
  getBlacklistUnverifiedDevices(): boolean | null;
};

/** Options of {@link openE2ee}. */
export type E2eeOptions = {
  /** The account's client (user id and device id set). */
  http: MatrixHttp;
  /** The crypto store directory (`encryption.storePath`). */
  storePath: string;
  /** Encrypts the store's values (`encryption.storePassphraseEnv`'s value). */
  passphrase?: string | undefined;
};

/** The encryption engine of one account. */
export class MatrixE2ee {
  readonly #http: MatrixHttp;
  readonly #crypto: RustCryptoBackend;
  readonly #store: CryptoStoreFile;
  /** Room id → is it encrypted (configured in the SDK), once known. */
  readonly #rooms = new Map<string, Promise<boolean>>();
  #keyWaiters = new Set<() => void>();
  #closed = false;

  private constructor(http: MatrixHttp, crypto: RustCryptoBackend, store: CryptoStoreFile) {
    this.#http = http;
    this.#crypto = crypto;
    this.#store = store;
  }

  /** @internal — use {@link openE2ee}. */
  static async create(options: E2eeOptions): Promise<MatrixE2ee> {
    const store = await CryptoStoreFile.open(options.storePath);
    const client = options.http.client;
    await client.initRustCrypto({
      cryptoDatabasePrefix: store.prefix,
      ...(options.passphrase ? { storagePassword: options.passphrase } : {}),
    });
    const crypto = client.getCrypto() as unknown as RustCryptoBackend;
    const engine = new MatrixE2ee(options.http, crypto, store);
    // Publish the device keys and one-time keys now, so others can encrypt to this device.
    await engine.#flush();
    return engine;
  }

  /** The file the crypto store is saved in. */
  get storeFile(): string {
    return this.#store.path;
  }

  /**
   * Runs the SDK's pending outgoing requests (key upload/query/claim) and saves the store when
   * `save` (what they change without a save — key queries, an upload — is asked again, or
   * uploaded identically, after a crash).
   */
  async #flush(save = true): Promise<void> {
    const manager = this.#crypto.outgoingRequestsManager;
    if (manager) await manager.doProcessOutgoingRequests();
    else this.#crypto.onSyncCompleted({});
    if (save) await this.#store.save();
  }

  /**
   * Hands one `/sync`'s encryption parts to the SDK, configures the rooms whose
   * `m.room.encryption` state it carried, sends what the SDK needs sent, and saves the store.
   * Call it before handing the batch's events over and before the next `/sync`.
   *
   * @throws when the SDK or the store failed (ask the same `/sync` again: nothing was acknowledged).
   */
  async processSync(
    parts: SyncCryptoParts,
    encryptionEvents: Array<{ roomId: string; content: Record<string, unknown> }>,
    memberships: Array<{ roomId: string; userId: string; membership: string }> = [],
  ): Promise<void> {
    await this.#crypto.processSyncChanges({
      toDeviceEvents: parts.toDevice ?? [],
      ...(parts.deviceLists ? { deviceLists: parts.deviceLists } : {}),
      oneTimeKeysCounts: parts.oneTimeKeysCounts ?? {},
      ...(parts.unusedFallbackKeyTypes
        ? { unusedFallbackKeys: new Set(parts.unusedFallbackKeyTypes) }
        : {}),
    });
    for (const { roomId, content } of encryptionEvents) await this.#configure(roomId, content);
    // A member who joins an encrypted room later: the SDK starts tracking their devices, so the
    // next room key is shared with them too (leavers are dropped: the members are read afresh).
    for (const { roomId, userId, membership } of memberships) {
      this.#crypto.onRoomMembership(new MatrixEvent({ room_id: roomId }), { userId, membership });
    }
    // Saved whenever the sync brought something the store must not lose: to-device events (room
    // keys, Olm sessions: the next /sync deletes them on the server), device-list changes, or
    // rooms turning encryption on. An idle long poll does not rewrite the file.
    const changed =
      (parts.toDevice?.length ?? 0) > 0 ||
      (parts.deviceLists?.changed?.length ?? 0) > 0 ||
      (parts.deviceLists?.left?.length ?? 0) > 0 ||
      encryptionEvents.length > 0;
    await this.#flush(changed);
    for (const wake of [...this.#keyWaiters]) wake();
  }

  /**
   * Waits until the next `/sync` was processed (room keys may have arrived), or `ms`, or `signal`.
   */
  waitForKeys(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#keyWaiters.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#keyWaiters.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  async #configure(roomId: string, content: Record<string, unknown>): Promise<boolean> {
    const event = new MatrixEvent({
      type: "m.room.encryption",
      state_key: "",
      room_id: roomId,
      content,
    });
    await this.#crypto.onCryptoEvent(this.#roomLike(roomId), event);
    const enabled = await this.#crypto.isEncryptionEnabledInRoom(roomId);
    if (enabled) this.#rooms.set(roomId, Promise.resolve(true));
    return enabled;
  }

  #roomLike(roomId: string): RoomLike {
    const http = this.#http;
    return {
      roomId,
      getJoinedMembers: () => [],
      async getEncryptionTargetMembers() {
        const answer = await http.request<{ joined?: Record<string, unknown> }>(
          "GET",
          `/rooms/${seg(roomId)}/joined_members`,
          "GET /rooms/{roomId}/joined_members",
        );
        return Object.keys(answer.joined ?? {}).map((userId) => ({ userId, membership: "join" }));
      },
      shouldEncryptForInvitedMembers: () => false,
      getHistoryVisibility: () => "shared",
      getBlacklistUnverifiedDevices: () => null,
    };
  }

  /** Records that `roomId` turned encryption on (a receiver saw its state). */
  markEncrypted(roomId: string, content: Record<string, unknown>): Promise<boolean> {
    const known = this.#rooms.get(roomId);
    if (known) return known;
    const configured = this.#configure(roomId, content);
    this.#rooms.set(roomId, configured);
    return configured;
  }

  /**
   * Whether `roomId` is encrypted: what a `/sync` showed, else the room's state read once from
   * the homeserver (`GET /rooms/{roomId}/state`: an `m.room.encryption` event or not).
   *
   * @throws MatrixApiError / MatrixNetworkError when the state cannot be read.
   */
  isEncrypted(roomId: string, signal?: AbortSignal): Promise<boolean> {
    const known = this.#rooms.get(roomId);
    if (known) return known;
    const probe = this.#http
      .request<unknown>("GET", `/rooms/${seg(roomId)}/state`, "GET /rooms/{roomId}/state", {
        signal,
      })
      .then((state) => {
        const events = Array.isArray(state) ? (state as Array<Record<string, unknown>>) : [];
        const encryption = events.findLast(
          (e) => e?.type === "m.room.encryption" && e.state_key === "",
        );
        if (!encryption) return false;
        return this.#configure(roomId, (encryption.content ?? {}) as Record<string, unknown>);
      });
    this.#rooms.set(roomId, probe);
    probe.catch(() => this.#rooms.delete(roomId));
    return probe;
  }

  /**
   * Encrypts `content` of event `type` for `roomId`: shares the room key first when needed
   * (`/keys/query`, `/keys/claim`, `/sendToDevice`), saves the store, and returns the
   * `m.room.encrypted` content (`m.relates_to` stays in the clear, as the spec says).
   *
   * @throws Error when the room is not encrypted or the SDK could not share its key.
   */
  async encrypt(
    roomId: string,
    type: string,
    content: Record<string, unknown>,
  ): Promise<{ type: string; content: Record<string, unknown> }> {
    if (!(await this.isEncrypted(roomId))) {
      throw new Error(`room ${roomId} is not encrypted`);
    }
    const event = new MatrixEvent({ type, content, room_id: roomId, sender: this.#userId() });
    await this.#crypto.encryptEvent(event, this.#roomLike(roomId));
    await this.#store.save();
    return { type: event.getWireType(), content: event.getWireContent() };
  }

  #userId(): string {
    return this.#http.client.getUserId() ?? "";
  }

  /**
   * Decrypts one `m.room.encrypted` event of `roomId` (client format).
   * @returns the clear type and content, or the SDK's failure code and whether waiting helps.
   */
  async decrypt(roomId: string, event: Record<string, unknown>): Promise<DecryptResult> {
    const matrixEvent = new MatrixEvent({ ...event, room_id: roomId });
    try {
      const { clearEvent } = await this.#crypto.decryptEvent(matrixEvent);
      const content = (clearEvent.content ?? {}) as Record<string, unknown>;
      // `m.relates_to` travels in the clear (the spec): put it back into the clear content.
      const relation = (event.content as Record<string, unknown> | undefined)?.["m.relates_to"];
      const sessionId = (event.content as { session_id?: unknown } | undefined)?.session_id;
      return {
        ok: true,
        type: String(clearEvent.type ?? ""),
        content:
          relation !== undefined && !("m.relates_to" in content)
            ? { ...content, "m.relates_to": relation }
            : content,
        ...(typeof sessionId === "string" ? { sessionId } : {}),
      };
    } catch (error) {
      const code = String((error as { code?: unknown }).code ?? "UNKNOWN_ERROR");
      return {
        ok: false,
        code,
        message: error instanceof Error ? error.message : String(error),
        retryable: RETRYABLE.has(code),
      };
    }
  }

  /** Saves the store once more and stops the SDK's crypto (its IndexedDB connections close). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const wake of [...this.#keyWaiters]) wake();
    await this.#store.save().catch(() => {});
    this.#crypto.stop();
  }
}

const engines = new Map<string, { engine: Promise<MatrixE2ee>; users: number }>();

/**
 * Opens the engine of a store path, or shares the one already open in this process (the adapter
 * and the receiver of an account); each call must be matched by {@link closeE2ee}.
 */
export function openE2ee(options: E2eeOptions): Promise<MatrixE2ee> {
  const open = engines.get(options.storePath);
  if (open) {
    open.users += 1;
    return open.engine;
  }
  const engine = MatrixE2ee.create(options);
  engines.set(options.storePath, { engine, users: 1 });
  engine.catch(() => engines.delete(options.storePath));
  return engine;
}

/**
 * A reference that opens the engine on first use (adapters are built without I/O) and shares it
 * by store path; `close()` releases it if it was opened.
 */
export function lazyE2ee(options: E2eeOptions): {
  ref: () => Promise<MatrixE2ee>;
  close(): Promise<void>;
} {
  let opened: Promise<MatrixE2ee> | undefined;
  return {
    ref() {
      opened ??= openE2ee(options);
      opened.catch(() => {
        opened = undefined;
      });
      return opened;
    },
    async close() {
      if (!opened) return;
      opened = undefined;
      await closeE2ee(options.storePath);
    },
  };
}

/** Releases one user of a store path's engine; the last one closes it. */
export async function closeE2ee(storePath: string): Promise<void> {
  const open = engines.get(storePath);
  if (!open) return;
  open.users -= 1;
  if (open.users > 0) return;
  engines.delete(storePath);
  const engine = await open.engine.catch(() => undefined);
  await engine?.close();
}
