/**
 * The QA channel's contract harness: a fresh {@link QaPlatform} per test, the real QA adapter
 * and event-stream receiver against it. `qaHarness({ delivery })` switches how unknown sends
 * are made safe (and the platform's idempotency with it), so the suite exercises every path:
 * exactly-once by native idempotency (`idempotent`, the default) or by lookup (`reconcile`),
 * `at_least_once`, and `hold`.
 *
 * @module
 */
import type { MessageTarget } from "@herald/plugin-sdk/channel-message";
import type { VisibleAuthor } from "@herald/plugin-sdk/testing";
import { type QaConfig, type QaDeliveryMode, qaConfigSchema } from "../config.ts";
import qaChannel, { createQaAdapter, createQaReceiverFor } from "../index.ts";
import { decodeOrigin, encodeOrigin } from "../origin.ts";
import type {
  ContractAuthor,
  ContractGuarantee,
  ContractHarness,
  ContractPlatform,
  ContractPluginLoad,
} from "./contract/types.ts";
import {
  DEFAULT_QA_BOT,
  QA_PLATFORM_MAX_TEXT,
  type QaBot,
  QaPlatform,
} from "./platform/QaPlatform.ts";

/** What the QA adapter needs to reach a test platform (JSON, for crash-test children). */
export type QaConnection = {
  baseUrl: string;
  token: string;
  /** Absent: the config's default (the platform's real limit). */
  maxLength?: number;
  delivery: QaDeliveryMode;
  /** The adapter's native stream (`nativeStream` config). @defaultValue false */
  nativeStream?: boolean;
  /** @defaultValue 5_000 */
  requestTimeoutMs?: number;
};

/** A second bot on test platforms, for echo tests. */
export const OTHER_QA_BOT: QaBot = {
  id: "other-bot",
  name: "other bot",
  token: "other-bot:secret",
};

/** The second account's bot on test platforms, for the two-accounts test. */
export const SECOND_QA_BOT: QaBot = {
  id: "herald-2",
  name: "herald two",
  token: "herald-2:qa-second-secret",
};

/** The adapter config used against a test platform: short timeouts, fast reconnects. */
export function testConfig(c: QaConnection): QaConfig {
  return qaConfigSchema.parse({
    baseUrl: c.baseUrl,
    ...(c.maxLength !== undefined ? { maxLength: c.maxLength } : {}),
    delivery: c.delivery,
    requestTimeoutMs: c.requestTimeoutMs ?? 5_000,
    reconnectDelayMs: 50,
    editRate: { limit: 20, intervalMs: 1_000 },
    nativeStream: c.nativeStream ?? false,
  });
}

const asBot = (b: QaBot): VisibleAuthor => ({ id: b.id, name: b.name, bot: true });

/** Who posts for each of the suite's authors. */
const AUTHORS: Record<ContractAuthor, VisibleAuthor> = {
  user: { id: "alice", name: "Alice", bot: false },
  other_bot: asBot(OTHER_QA_BOT),
  self: asBot(DEFAULT_QA_BOT),
  second_self: asBot(SECOND_QA_BOT),
};

/** Wraps a running QA platform in the contract suite's platform-neutral face. */
export function qaContractPlatform(
  platform: QaPlatform,
  connection: QaConnection,
): ContractPlatform<QaConnection> {
  const bot = DEFAULT_QA_BOT;
  return {
    connection,
    createTarget: (kind) => ({ kind, id: platform.createChat({ type: kind }).id }),
    createThread(target): MessageTarget {
      const root = platform.post({ chat: target.id, text: "a question worth a thread" });
      return { kind: "thread", id: target.id, parentId: target.id, threadId: root.id };
    },
    visible: (target) =>
      platform.state.messages({ chat: target.id, thread: target.threadId ?? null }),
    isTyping: (target) =>
      platform.state.isTyping(target.id, {
        userId: bot.id,
        ...(target.threadId ? { thread: target.threadId } : {}),
      }),
    faults: platform.faults,
    calls: () => platform.server.calls,
    storedOrigin: (message) => decodeOrigin({ message: { metadata: message.metadata } }),
    expireKeys() {
      platform.state.keyTtlMs = 0;
    },
    inbound: {
      nativeOrigin: true,
      async post(target, message) {
        const author = AUTHORS[message.author ?? "user"];
        const metadata = encodeOrigin(message.origin);
        const posted = platform.post({
          chat: target.id,
          text: message.text,
          author,
          ...(target.threadId ? { thread: target.threadId } : {}),
          ...(metadata ? { metadata } : {}),
        });
        return { platformMessageId: posted.id };
      },
      async redeliver(platformMessageId) {
        platform.redeliver(platformMessageId);
      },
    },
    ...(platform.botByToken(SECOND_QA_BOT.token)
      ? {
          secondAccount: {
            accountId: SECOND_QA_BOT.id,
            connection: { ...connection, token: SECOND_QA_BOT.token },
          },
        }
      : {}),
    features: {
      botReactions: (_target, id) =>
        Object.entries(platform.extras.reactionsOf(id) ?? {})
          .filter(([, users]) => users.includes(bot.id))
          .map(([emoji]) => emoji),
      filesOf: (message) =>
        platform.extras.filesOf(message.id).map((f) => ({ name: f.name, sizeBytes: f.size })),
      uploads: () => platform.extras.uploads,
      click: (_target, id, actionId) =>
        platform.click({ messageId: id, actionId, user: { id: "alice", name: "Alice" } }),
      ephemeralFor: (target, userId) =>
        platform.extras.ephemerals(target.id, userId).map((e) => e.text),
      dmUserId: "alice",
      post: (target, text) =>
        platform.post({
          chat: target.id,
          text,
          author: AUTHORS.user,
          ...(target.threadId ? { thread: target.threadId } : {}),
        }).id,
    },
    close: () => platform.close(),
  };
}

/**
 * What each delivery mode guarantees for an unknown send: the platform deduplicates client keys
 * (`idempotent`); the lookup by client key is exact and answers only `sent` / `not_sent`, never
 * `unresolved` (`reconcile`, so complete); blind replays (`at_least_once`); an operator decides
 * (`hold`).
 */
export const QA_GUARANTEES: Readonly<Record<QaDeliveryMode, ContractGuarantee>> = {
  idempotent: "native-key",
  reconcile: "reconcile-complete",
  at_least_once: "at-least-once",
  hold: "hold",
};

/**
 * A QA contract harness.
 *
 * @param options.delivery - the adapter's delivery mode; the platform deduplicates client keys
 *   only under `idempotent`. @defaultValue "idempotent"
 */
export function qaHarness(
  options: { delivery?: QaDeliveryMode } = {},
): ContractHarness<QaConnection> {
  const delivery = options.delivery ?? "idempotent";
  return {
    name: delivery === "idempotent" ? "qa-channel" : `qa-channel, delivery ${delivery}`,
    guarantee: QA_GUARANTEES[delivery],
    module: { url: import.meta.url, exportName: "qaHarness", args: { delivery } },
    accountId: DEFAULT_QA_BOT.id,
    secrets: [DEFAULT_QA_BOT.token],
    platformLimits: { maxLength: QA_PLATFORM_MAX_TEXT },
    async platform({ maxLength, requestTimeoutMs, adapterDefaults }) {
      const platform = await QaPlatform.start({
        idempotency: delivery === "idempotent",
        maxTextLength: adapterDefaults ? QA_PLATFORM_MAX_TEXT : maxLength,
        bots: [DEFAULT_QA_BOT, OTHER_QA_BOT, SECOND_QA_BOT],
      });
      return qaContractPlatform(platform, {
        baseUrl: platform.url,
        token: DEFAULT_QA_BOT.token,
        ...(adapterDefaults ? {} : { maxLength }),
        delivery,
        // Live mode `native` streams through the platform's stream API (the default `partial`
        // still edits previews), so the native-stream contract tests run.
        nativeStream: true,
        ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
      });
    },
    createAdapter: (c) => createQaAdapter(testConfig(c), c.token),
    createReceiver: (c, sink) => createQaReceiverFor(testConfig(c), c.token, sink),
    // Loaded as a gateway loads it: the config a user writes, the token from its env var.
    plugin: {
      plugin: qaChannel as ContractPluginLoad["plugin"],
      config: (c) => ({ baseUrl: c.baseUrl, delivery: c.delivery }),
      env: (c) => ({ HERALD_QA_TOKEN: c.token }),
    },
  };
}

/** The QA channel's harness for the contract suite (discovered by qa-channel's own test run). */
export const contractHarness: ContractHarness<QaConnection> = qaHarness();
