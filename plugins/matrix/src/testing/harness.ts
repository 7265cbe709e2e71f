/**
 * The Matrix channel's contract harness: a fresh {@link FakeHomeserver} per test, the real
 * adapter — the real matrix-js-sdk client — against it. qa-channel's workspace test discovers
 * `contractHarness` and runs the shared contract suite on it.
 *
 * The harness speaks the suite's platform-neutral terms (a `ContractHarness` from
 * `@herald/plugin-sdk/testing`: plugins import only the SDK).
 * Targets are rooms; threads are `m.thread` threads under a person's message; message ids are
 * herald's `<roomId>:<eventId>` refs.
 *
 * @module
 */
import type { MessageOrigin, MessageTarget } from "@herald/plugin-sdk/channel-message";
import type {
  ContractAuthor,
  ContractHarness,
  ContractPlatform,
  VisibleMessage,
} from "@herald/plugin-sdk/testing";
import {
  MATRIX_DEFAULT_TEXT_LENGTH,
  type MatrixConfig,
  type MatrixConfigInput,
  matrixConfigSchema,
} from "../config.ts";
import { createMatrixAdapter, createMatrixReceiver } from "../index.ts";
import { ORIGIN_CONTENT_KEY } from "../origin.ts";
import { eventRef } from "../send.ts";
import {
  ALICE,
  FAKE_BOT,
  FakeHomeserver,
  type FakeMatrixUser,
  OTHER_FAKE_BOT,
  SECOND_FAKE_BOT,
} from "./FakeHomeserver.ts";

/** What the adapter needs to reach a fake (JSON, for crash-test children). */
export type MatrixConnection = {
  homeserverUrl: string;
  accessToken: string;
  userId: string;
  deviceId: string;
  /** Absent: the config's default. */
  maxTextLength?: number;
  /** @defaultValue 5_000 */
  requestTimeoutMs?: number;
};

/**
 * The adapter config used against a fake: short timeouts, fast drafts, the per-room budget
 * loosened so the suite stays quick — the declared budget is asserted by the plugin's own tests —
 * and `homeserver.kind: "synapse"`, the fake's default server kind.
 */
export function testConfig(
  c: MatrixConnection,
  extra: MatrixConfigInput | object = {},
): MatrixConfig {
  return matrixConfigSchema.parse({
    homeserverUrl: c.homeserverUrl,
    userId: c.userId,
    deviceId: c.deviceId,
    ...(c.maxTextLength !== undefined ? { maxTextLength: c.maxTextLength } : {}),
    requestTimeoutMs: c.requestTimeoutMs ?? 5_000,
    previewIntervalMs: 50,
    roomRateLimit: { limit: 100, intervalMs: 1_000 },
    sync: { pollTimeoutMs: 2_000, retryDelayMs: 50 },
    // The fake is a Synapse unless a test switches it (`FakeHomeserverOptions.kind`).
    homeserver: { kind: "synapse" },
    ...extra,
  });
}

/** The connection of the bot to a running fake. */
export function connectionOf(
  fake: FakeHomeserver,
  extra: Partial<MatrixConnection> = {},
): MatrixConnection {
  return {
    homeserverUrl: fake.url,
    accessToken: FAKE_BOT.accessToken,
    userId: FAKE_BOT.userId,
    deviceId: FAKE_BOT.deviceId,
    ...extra,
  };
}

/**
 * A running fake in the suite's terms: the SDK's `ContractPlatform`, plus the fake itself for
 * the plugin's own tests.
 */
export type MatrixContractPlatform = ContractPlatform<MatrixConnection> & {
  /** The running fake behind the platform-neutral face. */
  readonly fake: FakeHomeserver;
};

const AUTHORS: Record<ContractAuthor, FakeMatrixUser> = {
  user: ALICE,
  other_bot: OTHER_FAKE_BOT,
  self: FAKE_BOT,
  second_self: SECOND_FAKE_BOT,
};

/** The visible messages of a room (a thread's, or the top level), with herald's refs as ids. */
export function visibleMessages(fake: FakeHomeserver, target: MessageTarget): VisibleMessage[] {
  const room = target.nativeChannelId ?? target.id;
  return fake.visible(room, { thread: target.threadId ?? null }).map((m) => ({
    id: eventRef(room, m.id),
    chat: room,
    // A file event's body is its name (fallback text): the file is shown, not text ([H23]).
    text: typeof m.content.url === "string" ? "" : m.text,
    author: m.author,
    history: m.history,
    deleted: false,
    createdAt: m.createdAt,
    ...(m.thread !== undefined ? { thread: m.thread } : {}),
    ...(m.replyTo !== undefined ? { replyTo: eventRef(room, m.replyTo) } : {}),
    ...(m.key !== undefined ? { key: m.key } : {}),
    ...(m.content[ORIGIN_CONTENT_KEY] !== undefined
      ? { metadata: { [ORIGIN_CONTENT_KEY]: m.content[ORIGIN_CONTENT_KEY] } }
      : {}),
  }));
}

/** Wraps a running fake in the suite's platform-neutral face. */
export function matrixContractPlatform(
  fake: FakeHomeserver,
  connection: MatrixConnection,
): MatrixContractPlatform {
  return {
    connection,
    fake,
    createTarget(kind) {
      const room = fake.createRoom({ direct: kind === "direct", name: `contract ${kind}` });
      return { kind, id: room.id };
    },
    createThread(target) {
      const root = fake.post({
        room: target.id,
        sender: ALICE.userId,
        body: "a question worth a thread",
      });
      return { kind: "thread", id: target.id, parentId: target.id, threadId: root.event_id };
    },
    visible: (target) => visibleMessages(fake, target),
    storedOrigin(message) {
      const { id } = { id: message.id.slice(message.id.lastIndexOf(":") + 1) };
      const event = fake.rooms.get(id);
      return event?.content[ORIGIN_CONTENT_KEY] as MessageOrigin | undefined;
    },
    expireKeys() {
      fake.rooms.txnTtlMs = 0;
      fake.rooms.expireTransactions();
    },
    isTyping: (target) => fake.isTyping(target.id),
    calls: () => fake.server.calls,
    faults: fake.faults,
    inbound: {
      nativeOrigin: true,
      async post(target, message) {
        const sender = AUTHORS[message.author ?? "user"];
        const event = fake.post({
          room: target.id,
          sender: sender.userId,
          body: message.text,
          ...(target.threadId !== undefined ? { thread: target.threadId } : {}),
          ...(message.origin ? { content: { [ORIGIN_CONTENT_KEY]: message.origin } } : {}),
        });
        return { platformMessageId: eventRef(target.id, event.event_id) };
      },
      async redeliver(platformMessageId) {
        fake.rooms.redeliver(platformMessageId.slice(platformMessageId.lastIndexOf(":") + 1));
      },
    },
    features: {
      botReactions: (_target, platformMessageId) => {
        const id = platformMessageId.slice(platformMessageId.lastIndexOf(":") + 1);
        return fake.rooms.events
          .filter((e) => {
            const rel = e.content["m.relates_to"] as { event_id?: string } | undefined;
            return (
              e.type === "m.reaction" &&
              e.sender === FAKE_BOT.userId &&
              !e.redactedBy &&
              rel?.event_id === id
            );
          })
          .map((e) => String((e.content["m.relates_to"] as { key?: unknown }).key));
      },
      filesOf(message) {
        const event = fake.rooms.get(message.id.slice(message.id.lastIndexOf(":") + 1));
        const url = event?.content.url;
        const upload = typeof url === "string" ? fake.media.uploads.get(url) : undefined;
        if (!event || !upload) return [];
        return [{ name: String(event.content.body), sizeBytes: upload.bytes.byteLength }];
      },
      uploads: () => fake.media.uploads.size,
      dmUserId: ALICE.userId,
      post(target, text) {
        const event = fake.post({
          room: target.id,
          sender: ALICE.userId,
          body: text,
          ...(target.threadId !== undefined ? { thread: target.threadId } : {}),
        });
        return eventRef(target.id, event.event_id);
      },
    },
    secondAccount: {
      accountId: "second",
      connection: {
        ...connection,
        accessToken: SECOND_FAKE_BOT.accessToken,
        userId: SECOND_FAKE_BOT.userId,
        deviceId: SECOND_FAKE_BOT.deviceId,
      },
    },
    close: () => fake.close(),
  };
}

/** A Matrix contract harness: the SDK's `ContractHarness` for Matrix connections. */
export type MatrixContractHarness = ContractHarness<MatrixConnection>;

/**
 * The Matrix contract harness. The adapter chunks to the suite's small `maxLength` hint so
 * multi-part tests stay cheap; with `adapterDefaults` it uses its default limit.
 */
export function matrixHarness(): MatrixContractHarness {
  return {
    name: "matrix",
    guarantee: "native-key",
    module: { url: import.meta.url, exportName: "contractHarness" },
    accountId: "main",
    secrets: [FAKE_BOT.accessToken],
    platformLimits: { maxLength: MATRIX_DEFAULT_TEXT_LENGTH },
    async platform({ maxLength, requestTimeoutMs, adapterDefaults }) {
      const fake = await FakeHomeserver.start();
      return matrixContractPlatform(
        fake,
        connectionOf(fake, {
          ...(adapterDefaults ? {} : { maxTextLength: Math.max(maxLength, 2) }),
          ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
        }),
      );
    },
    createAdapter: (c) =>
      createMatrixAdapter(testConfig(c), c.accessToken, { userId: c.userId, deviceId: c.deviceId }),
    createReceiver: (c, sink) =>
      createMatrixReceiver(testConfig(c), c.accessToken, sink, {
        userId: c.userId,
        deviceId: c.deviceId,
      }),
  };
}

/** The Matrix harness for the shared contract suite (discovered by qa-channel's test run). */
export const contractHarness: MatrixContractHarness = matrixHarness();
