/**
 * `@herald/plugin-matrix`: the Matrix channel for herald, on matrix-js-sdk. Exactly-once sends by
 * transaction id, with an in-doubt send found by its `unsigned.transaction_id` before any replay
 * (how long a homeserver remembers a txnId depends on its software: `homeserver.kind`), sanitized HTML with a plain
 * body, threads and replies, `m.replace` edits that always target the original event, redactions,
 * and one rate-limit budget per room for all three.
 *
 * @example herald.config.json
 * { "channels": [{ "plugin": "@herald/plugin-matrix",
 *   "config": { "homeserverUrl": "https://matrix.example.org", "deviceId": "HERALDBOT" } }] }
 *
 * @packageDocumentation
 */
import {
  type ChannelAccount,
  type ChannelAccountDeps,
  ChannelAccountError,
  type ChannelMessageAdapter,
  type ChannelReceiverSink,
  defineChannelMessageAdapter,
  defineChannelPlugin,
  type MessageCapabilities,
  readSecret,
} from "@herald/plugin-sdk/channel-message";
import {
  checkMatrixCredentials,
  MATRIX_CHANNEL_ID,
  type MatrixIdentity,
  whoami,
} from "./account.ts";
import { MatrixHttp } from "./client.ts";
import {
  type MatrixConfig,
  matrixConfigSchema,
  matrixSecrets,
  txnRetentionMsOf,
} from "./config.ts";
import { createDirect } from "./direct.ts";
import { closeE2ee, lazyE2ee, openE2ee } from "./e2ee.ts";
import { createHistory, MATRIX_HISTORY_MAX_LIMIT } from "./history.ts";
import { createLive } from "./live.ts";
import { createFetchAttachment } from "./media.ts";
import { matrixOrigin } from "./origin.ts";
import { createReact } from "./reactions.ts";
import { createReceive } from "./receive.ts";
import { createSyncReceiver, type MatrixSyncReceiver } from "./receiver.ts";
import { createRender } from "./render.ts";
import type { E2eeRef } from "./roomCrypto.ts";
import { EncryptedRooms } from "./rooms.ts";
import { createSend, roomIdOf } from "./send.ts";

export {
  checkMatrixCredentials,
  MATRIX_CHANNEL_ID,
  type MatrixIdentity,
  whoami,
} from "./account.ts";
export { type MatrixCallOptions, MatrixHttp, type MatrixHttpOptions } from "./client.ts";
export {
  HOMESERVER_KINDS,
  type HomeserverKind,
  MATRIX_DEFAULT_TEXT_LENGTH,
  MATRIX_EVENT_LIMIT_BYTES,
  type MatrixConfig,
  type MatrixConfigInput,
  type MatrixEncryptionConfig,
  type MatrixHomeserverConfig,
  type MatrixSyncConfig,
  matrixConfigSchema,
  matrixEncryptionSchema,
  matrixHomeserverSchema,
  TXN_RETENTION_MS_BY_KIND,
  txnRetentionMsOf,
} from "./config.ts";
export { CRYPTO_STORE_FILE } from "./cryptoStore.ts";
export { createDirect } from "./direct.ts";
export {
  type DecryptResult,
  type E2eeOptions,
  MatrixE2ee,
  type SyncCryptoParts,
} from "./e2ee.ts";
export { editContent } from "./edit.ts";
export {
  classifyError,
  MatrixApiError,
  MatrixDecryptionError,
  MatrixEditNotShownError,
  MatrixEncryptedRoomError,
  type MatrixErrorBody,
  MatrixNetworkError,
  MatrixRenderError,
} from "./errors.ts";
export { createHistory, MATRIX_HISTORY_MAX_LIMIT } from "./history.ts";
export {
  createFetchAttachment,
  FILE_MSGTYPES,
  inboundAttachmentOf,
  isFileAttachment,
  MATRIX_DEFAULT_MAX_UPLOAD_BYTES,
  type MatrixMediaPayload,
  mediaPayloadOf,
} from "./media.ts";
export {
  decodeOrigin,
  encodeOrigin,
  ORIGIN_CONTENT_KEY,
  SENT_CONTENT_KEY,
} from "./origin.ts";
export { findOwnEvents, type OwnEventsFound, type OwnEventsQuery } from "./ownEvents.ts";
export { createReact, ownReactions } from "./reactions.ts";
export {
  createReceive,
  type MatrixInbound,
  matrixInboundSchema,
  type ReceiveIdentity,
  stripReplyFallback,
} from "./receive.ts";
export {
  createSyncReceiver,
  type MatrixDecryptionCounters,
  type MatrixSyncCounters,
  type MatrixSyncReceiver,
  type SyncReceiverOptions,
} from "./receiver.ts";
export {
  CONTENT_OVERHEAD_BYTES,
  type MatrixUnitPayload,
  matrixUserMentions,
  renderPayloads,
} from "./render.ts";
export type { E2eeRef } from "./roomCrypto.ts";
export { EncryptedRooms } from "./rooms.ts";
export {
  eventRef,
  type MatrixPartMemo,
  parseEventRef,
  relationOf,
  TXN_ID_LENGTH,
  txnIdOf,
} from "./send.ts";

/**
 * Synapse keeps `(room, user, device, txnId) → event_id` in its database for 24 h; herald trusts
 * a Synapse txnId a little less long, 23 h, counted from the unit's first dispatch. Other servers
 * differ: the window actually declared is `homeserver`'s ({@link txnRetentionMsOf}).
 */
export const MATRIX_TXN_WINDOW_MS = 82_800_000;

/**
 * What the Matrix channel can do under `config`: text chunked at `maxTextLength` UTF-16 units
 * (and `maxContentBytes` per event), replies and threads (in DMs too), edits and redactions
 * (live drafts at one edit per `previewIntervalMs` per room), a native idempotency key (txnId,
 * trusted for the homeserver kind's retention: 23 h on Synapse and Conduit, never on Dendrite or
 * an unknown server), a complete reconciler (own events found by `unsigned.transaction_id`), and
 * one budget per room shared by sends, edits and redactions.
 */
export function matrixCapabilities(config: MatrixConfig): MessageCapabilities {
  return {
    text: { maxLength: config.maxTextLength, chunking: true },
    threads: { reply: true, nativeThread: true, inDirect: true },
    live: {
      edit: true,
      delete: true,
      progress: true,
      editRate: { limit: 1, intervalMs: config.previewIntervalMs },
    },
    delivery: {
      idempotencyKey: true,
      idempotencyWindowMs: txnRetentionMsOf(config.homeserver),
      requestTimeoutMs: config.requestTimeoutMs,
      // A lookup by unsigned.transaction_id that reached the room's start (or an earlier part of
      // the message) proves the rest absent; one that did not answers `unresolved`.
      reconcile: { notSent: "complete" },
      retryAfter: true,
      receiptRequired: true,
      freshSendOnEditNotFound: true,
    },
    // Files out: uploaded to mxc:// and sent as their own events (media.ts); not in encrypted rooms.
    attachments: {
      upload: true,
      remoteUrl: true,
      maxUploadBytes: config.maxUploadBytes,
      // Inbound m.image/m.file/… carry their mxc:// URI; fetched through authenticated media.
      receive: true,
    },
    // /rooms/{r}/messages and the m.thread relations (history.ts).
    history: { conversation: true, thread: true, maxLimit: MATRIX_HISTORY_MAX_LIMIT },
    // m.reaction by txnId; remove = redact the bot's reaction (reactions.ts); others' m.reaction in.
    reactions: { add: true, remove: true, receive: true, repeat: "idempotent" },
    // No buttons on Matrix: the core's text fallback ("Reply with: …").
    actions: { buttons: false, receive: false },
    ephemeral: false,
    // createRoom is_direct + invite, reused through m.direct account data (direct.ts).
    directMessages: { open: true },
    rateLimits: [
      // One bucket per room for every operation (no `operations` filter): sends, edits, redactions.
      {
        scope: "chat",
        limit: config.roomRateLimit.limit,
        intervalMs: config.roomRateLimit.intervalMs,
      },
    ],
  };
}

/** What {@link createMatrixAdapter} shares with the receiver of the same account. */
export type MatrixAccountParts = {
  http: MatrixHttp;
  rooms: EncryptedRooms;
  /**
   * The account's encryption engine (with `encryption` configured). Absent while `encryption`
   * is configured: the adapter (receiver) opens one on first use, shared by store path.
   */
  e2ee?: E2eeRef;
};

/** The account's client (no I/O). */
function httpOf(config: MatrixConfig, accessToken: string, userId: string | undefined): MatrixHttp {
  return new MatrixHttp({
    homeserverUrl: config.homeserverUrl,
    accessToken,
    deviceId: config.deviceId,
    timeoutMs: config.requestTimeoutMs,
    ...(userId !== undefined ? { userId } : {}),
  });
}

/**
 * The engine reference of a config with `encryption`, opened on first use; `undefined` without.
 * @param passphrase - the value of `encryption.storePassphraseEnv`, when configured.
 */
function e2eeOf(
  config: MatrixConfig,
  http: MatrixHttp,
  passphrase: string | undefined,
): E2eeRef | undefined {
  if (!config.encryption) return undefined;
  return lazyE2ee({ http, storePath: config.encryption.storePath, passphrase }).ref;
}

/** The store passphrase of a config, read as a secret (never from the config itself). */
function passphraseOf(
  config: MatrixConfig,
  deps: Pick<ChannelAccountDeps, "secret"> | undefined,
): string | undefined {
  const env = config.encryption?.storePassphraseEnv;
  if (env === undefined || deps === undefined) return undefined;
  return readSecret(deps, {
    channel: "matrix",
    name: env,
    setting: "encryption.storePassphraseEnv",
    what: "the Matrix crypto store passphrase",
    // A passphrase may hold spaces; only its ends are trimmed.
    multiline: true,
    expected: "a passphrase (any text; keep it with the store's backup)",
    where: "the passphrase chosen when the crypto store was created",
  });
}

/**
 * Builds the Matrix adapter for one account, without platform I/O (the identity check is
 * {@link createMatrixAccount}'s).
 *
 * @param config - a validated config (`matrixConfigSchema.parse(...)`).
 * @param accessToken - the bot's access token (of `config.deviceId`).
 * @param identity - the `/whoami` identity, when known; else `config.userId`.
 */
export function createMatrixAdapter(
  config: MatrixConfig,
  accessToken: string,
  identity?: MatrixIdentity,
  parts?: MatrixAccountParts,
): ChannelMessageAdapter {
  const userId = identity?.userId ?? config.userId;
  const http = parts?.http ?? httpOf(config, accessToken, userId);
  const rooms = parts?.rooms ?? new EncryptedRooms();
  const e2ee = parts?.e2ee ?? e2eeOf(config, http, undefined);
  return defineChannelMessageAdapter({
    id: MATRIX_CHANNEL_ID,
    capabilities: matrixCapabilities(config),
    render: createRender(config),
    send: {
      ...createSend({
        http,
        rooms,
        maxContentBytes: config.maxContentBytes,
        accessToken,
        userId,
        lookupMaxPages: config.homeserver.lookupMaxPages,
        e2ee,
      }),
      react: createReact(http, userId),
    },
    origin: matrixOrigin,
    directMessages: createDirect(http, userId),
    live: createLive(http, config, userId),
    receive: {
      ...createReceive({ userId }),
      fetchAttachment: createFetchAttachment(config.homeserverUrl, accessToken),
    },
    history: createHistory(http, userId),
    // Sends, edits and redactions of one room share one route: a 429 pauses the whole room.
    rateLimitRoute: (call) => `room:${roomIdOf(call.target)}`,
  });
}

/**
 * Builds the `/sync` receiver of one account.
 *
 * @param identity - the `/whoami` identity, when known; else `config.userId`.
 * @param parts - the adapter's client and encrypted-room marks, to share them (an account).
 */
export function createMatrixReceiver(
  config: MatrixConfig,
  accessToken: string,
  sink: ChannelReceiverSink,
  identity?: MatrixIdentity,
  parts?: MatrixAccountParts,
): MatrixSyncReceiver {
  const userId = identity?.userId ?? config.userId;
  const http = parts?.http ?? httpOf(config, accessToken, userId);
  return createSyncReceiver({
    http,
    sink,
    config: config.sync,
    userId,
    rooms: parts?.rooms ?? new EncryptedRooms(),
    requestTimeoutMs: config.requestTimeoutMs,
    secrets: [accessToken],
    e2ee: parts?.e2ee ?? e2eeOf(config, http, undefined),
    ...(config.encryption ? { decryptWaitMs: config.encryption.decryptWaitMs } : {}),
  });
}

/**
 * Opens one account: `/versions` and `/whoami` (identity and device check), then the adapter
 * and the `/sync` receiver, sharing one client and the encrypted-room marks.
 *
 * @throws ChannelAccountError when the token, user id or device id is wrong (see `whoami`).
 */
export async function createMatrixAccount(
  config: MatrixConfig,
  deps: ChannelAccountDeps,
): Promise<ChannelAccount> {
  const accessToken = readSecret(deps, matrixSecrets.accessToken(config));
  const identity = await whoami(config, accessToken, deps.accountId, deps.signal);
  const http = new MatrixHttp({
    homeserverUrl: config.homeserverUrl,
    accessToken,
    userId: identity.userId,
    deviceId: identity.deviceId,
    timeoutMs: config.requestTimeoutMs,
  });
  const parts: MatrixAccountParts = { http, rooms: new EncryptedRooms() };
  const encryption = config.encryption;
  if (encryption) {
    // Opened at start: a store that cannot be read stops this account with the reason.
    const engine = await openE2ee({
      http,
      storePath: encryption.storePath,
      passphrase: passphraseOf(config, deps),
    }).catch((error: unknown) => {
      throw new ChannelAccountError(
        MATRIX_CHANNEL_ID,
        deps.accountId,
        `the crypto store in ${encryption.storePath} could not be opened (${(error as Error).message})`,
        "check encryption.storePath and encryption.storePassphraseEnv, or restore the store from its backup",
      );
    });
    parts.e2ee = () => Promise.resolve(engine);
  }
  const adapter = createMatrixAdapter(config, accessToken, identity, parts);
  const receiver = createMatrixReceiver(config, accessToken, deps.sink, identity, parts);
  return {
    adapter,
    receiver,
    identity: { id: identity.userId, name: identity.userId },
    close: async () => {
      if (encryption) await closeE2ee(encryption.storePath);
    },
  };
}

/** The Matrix channel plugin. */
const matrix = defineChannelPlugin<MatrixConfig>({
  id: MATRIX_CHANNEL_ID,
  configSchema: matrixConfigSchema,
  createAdapter: (config, deps) => {
    const accessToken = readSecret(deps, matrixSecrets.accessToken(config));
    const http = httpOf(config, accessToken, config.userId);
    const e2ee = e2eeOf(config, http, passphraseOf(config, deps));
    return createMatrixAdapter(config, accessToken, undefined, {
      http,
      rooms: new EncryptedRooms(),
      ...(e2ee ? { e2ee } : {}),
    });
  },
  createReceiver: (config, sink, deps) => {
    const accessToken = readSecret(deps, matrixSecrets.accessToken(config));
    const http = httpOf(config, accessToken, config.userId);
    const e2ee = e2eeOf(config, http, passphraseOf(config, deps));
    return createMatrixReceiver(config, accessToken, sink, undefined, {
      http,
      rooms: new EncryptedRooms(),
      ...(e2ee ? { e2ee } : {}),
    });
  },
  createAccount: createMatrixAccount,
  checkCredentials: (config, deps) => checkMatrixCredentials(config, deps),
});

export default matrix;
