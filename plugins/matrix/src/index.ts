/**
 * `@herald/plugin-matrix`: the Matrix channel for herald, on matrix-js-sdk. Exactly-once sends by
 * transaction id (the homeserver deduplicates a replay for 24 h), sanitized HTML with a plain
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
  type ChannelMessageAdapter,
  type ChannelReceiver,
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
import { type MatrixConfig, matrixConfigSchema, matrixSecrets } from "./config.ts";
import { createLive } from "./live.ts";
import { matrixOrigin } from "./origin.ts";
import { createReceive } from "./receive.ts";
import { createSyncReceiver } from "./receiver.ts";
import { createRender } from "./render.ts";
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
  MATRIX_DEFAULT_TEXT_LENGTH,
  MATRIX_EVENT_LIMIT_BYTES,
  type MatrixConfig,
  type MatrixConfigInput,
  type MatrixSyncConfig,
  matrixConfigSchema,
} from "./config.ts";
export { editContent } from "./edit.ts";
export {
  classifyError,
  MatrixApiError,
  MatrixEditNotShownError,
  MatrixEncryptedRoomError,
  type MatrixErrorBody,
  MatrixNetworkError,
  MatrixRenderError,
} from "./errors.ts";
export {
  decodeOrigin,
  encodeOrigin,
  ORIGIN_CONTENT_KEY,
  SENT_CONTENT_KEY,
} from "./origin.ts";
export {
  createReceive,
  type MatrixInbound,
  matrixInboundSchema,
  type ReceiveIdentity,
  stripReplyFallback,
} from "./receive.ts";
export { createSyncReceiver, type SyncReceiverOptions } from "./receiver.ts";
export {
  CONTENT_OVERHEAD_BYTES,
  type MatrixUnitPayload,
  matrixUserMentions,
  renderPayloads,
} from "./render.ts";
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
 * Synapse keeps `(room, user, device, txnId) → event_id` for 24 h (PLATFORMS.md §8); herald
 * trusts a txnId a little less long, 23 h, counted from the unit's first dispatch.
 */
export const MATRIX_TXN_WINDOW_MS = 82_800_000;

/**
 * What the Matrix channel can do under `config`: text chunked at `maxTextLength` UTF-16 units
 * (and `maxContentBytes` per event), replies and threads (in DMs too), edits and redactions
 * (live drafts at one edit per `previewIntervalMs` per room), a native idempotency key (txnId,
 * trusted for 23 h), and one budget per room shared by sends, edits and redactions.
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
      idempotencyWindowMs: MATRIX_TXN_WINDOW_MS,
      requestTimeoutMs: config.requestTimeoutMs,
      retryAfter: true,
      receiptRequired: true,
      freshSendOnEditNotFound: true,
    },
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
};

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
  const http =
    parts?.http ??
    new MatrixHttp({
      homeserverUrl: config.homeserverUrl,
      accessToken,
      deviceId: config.deviceId,
      timeoutMs: config.requestTimeoutMs,
      ...(userId !== undefined ? { userId } : {}),
    });
  const rooms = parts?.rooms ?? new EncryptedRooms();
  return defineChannelMessageAdapter({
    id: MATRIX_CHANNEL_ID,
    capabilities: matrixCapabilities(config),
    render: createRender(config),
    send: createSend({ http, rooms, maxContentBytes: config.maxContentBytes, accessToken }),
    origin: matrixOrigin,
    live: createLive(http, config, userId),
    receive: createReceive({ userId }),
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
): ChannelReceiver {
  const userId = identity?.userId ?? config.userId;
  const http =
    parts?.http ??
    new MatrixHttp({
      homeserverUrl: config.homeserverUrl,
      accessToken,
      deviceId: config.deviceId,
      timeoutMs: config.requestTimeoutMs,
      ...(userId !== undefined ? { userId } : {}),
    });
  return createSyncReceiver({
    http,
    sink,
    config: config.sync,
    userId,
    rooms: parts?.rooms ?? new EncryptedRooms(),
    requestTimeoutMs: config.requestTimeoutMs,
    secrets: [accessToken],
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
  const adapter = createMatrixAdapter(config, accessToken, identity, parts);
  const receiver = createMatrixReceiver(config, accessToken, deps.sink, identity, parts);
  return {
    adapter,
    receiver,
    identity: { id: identity.userId, name: identity.userId },
    close: async () => {},
  };
}

/** The Matrix channel plugin. */
const matrix = defineChannelPlugin<MatrixConfig>({
  id: MATRIX_CHANNEL_ID,
  configSchema: matrixConfigSchema,
  createAdapter: (config, deps) =>
    createMatrixAdapter(config, readSecret(deps, matrixSecrets.accessToken(config))),
  createReceiver: (config, sink, deps) =>
    createMatrixReceiver(config, readSecret(deps, matrixSecrets.accessToken(config)), sink),
  createAccount: createMatrixAccount,
  checkCredentials: (config, deps) => checkMatrixCredentials(config, deps),
});

export default matrix;
