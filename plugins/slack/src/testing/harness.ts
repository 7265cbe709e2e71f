/**
 * The Slack channel's contract harness: a fresh {@link FakeSlack} per test, the real adapter —
 * the real `WebClient` — against it. qa-channel's workspace test discovers `contractHarness` and
 * runs the shared contract suite on it.
 *
 * The harness speaks the suite's platform-neutral terms (the SDK's `ContractHarness`: plugins import
 * only the SDK). Groups are channels, threads hang off a person's root message, message ids are
 * herald's `<channel>:<ts>`.
 *
 * @module
 */
import type {
  ContractAuthor,
  ContractHarness,
  ContractPlatform,
  VisibleMessage,
} from "@herald/plugin-sdk/testing";
import {
  SLACK_TEXT_LIMIT,
  type SlackConfig,
  type SlackConfigInput,
  slackConfigSchema,
} from "../config.ts";
import { createSlackAdapter, createSlackReceiver } from "../index.ts";
import { decodeOrigin, unitMetadata } from "../origin.ts";
import { emojiOfSlackName } from "../reactions.ts";
import { messageRef, parseMessageRef } from "../target.ts";
import {
  ALICE,
  FAKE_BOT,
  FakeSlack,
  type FakeSlackBot,
  OTHER_FAKE_BOT,
  SECOND_FAKE_BOT,
} from "./FakeSlack.ts";
import { clickPayload } from "./fakeActions.ts";
import { signSlackRequest } from "./fakeEvents.ts";
import { reactionsOn } from "./fakeReactions.ts";

/** What the adapter needs to reach a fake (JSON, for crash-test children). */
export type SlackConnection = {
  apiUrl: string;
  token: string;
  /** The app's signing secret (Events API). */
  signingSecret: string;
  /** Absent: the config's default (Slack's real limit). */
  maxTextLength?: number;
  /** @defaultValue 2_000 */
  requestTimeoutMs?: number;
  unknownSendPolicy: "hold" | "at_least_once";
};

/** Least time between history reads the adapter keeps in contract runs, in ms. */
export const CONTRACT_HISTORY_INTERVAL_MS = 60;

/**
 * The adapter config used against a fake: short timeouts, Slack's rate limits loosened so the
 * suite stays quick (the declared limits are asserted by the plugin's own tests), and a history
 * budget of one read per {@link CONTRACT_HISTORY_INTERVAL_MS}.
 */
export function testConfig(c: SlackConnection, extra: SlackConfigInput = {}): SlackConfig {
  return slackConfigSchema.parse({
    slackApiUrl: c.apiUrl,
    ...(c.maxTextLength !== undefined ? { maxTextLength: c.maxTextLength } : {}),
    unknownSendPolicy: c.unknownSendPolicy,
    requestTimeoutMs: c.requestTimeoutMs ?? 2_000,
    previewIntervalMs: 50,
    // The suite streams into channels without a recipient, which Slack refuses: native
    // streaming is tested by this package's own tests (stream.test.ts).
    nativeStreaming: false,
    ...extra,
    rateLimits: {
      postsPerChannelPerSecond: 50,
      updatesPerMinute: 3_000,
      deletesPerMinute: 3_000,
      appendsPerMinute: 3_000,
      stopsPerMinute: 3_000,
      ...extra.rateLimits,
    },
    reconcile: {
      historyIntervalMs: CONTRACT_HISTORY_INTERVAL_MS,
      visibilityLagMs: 0,
      maxPagesPerCheck: 5,
      maxBudgetWaitMs: 5_000,
      ...extra.reconcile,
    },
  });
}

/**
 * A running fake in the suite's terms: the SDK's `ContractPlatform`, plus the fake itself for
 * the plugin's own tests.
 */
export type SlackContractPlatform = ContractPlatform<SlackConnection> & {
  /** The running fake behind the platform-neutral face. */
  readonly fake: FakeSlack;
};

/** The bot that posts for each of the suite's authors (a person posts as no bot). */
const BOTS: Record<ContractAuthor, FakeSlackBot | undefined> = {
  user: undefined,
  other_bot: OTHER_FAKE_BOT,
  self: FAKE_BOT,
  second_self: SECOND_FAKE_BOT,
};

/** Wraps a running fake in the suite's platform-neutral face. */
export function slackContractPlatform(
  fake: FakeSlack,
  connection: SlackConnection,
): SlackContractPlatform {
  // herald's ids are `<channel>:<ts>`.
  const ref = (v: VisibleMessage): VisibleMessage => {
    const m = fake.messageOfVisible(v);
    const quoted = v.replyTo !== undefined ? fake.state.get(v.replyTo) : undefined;
    const q = quoted ? fake.messageOfVisible(quoted) : undefined;
    return m
      ? {
          ...v,
          id: messageRef(m.channel, m.ts),
          ...(q ? { replyTo: messageRef(q.channel, q.ts) } : {}),
        }
      : v;
  };
  return {
    connection,
    fake,
    createTarget(kind) {
      const channel = fake.createChannel({ type: kind === "direct" ? "im" : "channel" });
      return { kind: kind === "direct" ? "direct" : "group", id: channel.id };
    },
    createThread(target) {
      const root = fake.addMessage({
        channel: target.id,
        text: "a question worth a thread",
        user: ALICE.id,
        name: ALICE.name,
      });
      return { kind: "thread", id: target.id, parentId: target.id, threadId: root.ts };
    },
    visible: (target) => fake.messages(target.id, { thread: target.threadId ?? null }).map(ref),
    calls: () => fake.server.calls,
    storedOrigin(message) {
      const stored = [...fake.messagesByRef.values()].find(
        (m) => messageRef(m.channel, m.ts) === message.id,
      );
      return stored ? decodeOrigin({ metadata: stored.metadata }) : undefined;
    },
    attachmentsOf(message) {
      const stored = [...fake.messagesByRef.values()].find(
        (m) => messageRef(m.channel, m.ts) === message.id,
      );
      if (!stored) return [];
      const images = (stored.blocks ?? []).flatMap((b) => {
        const block = b as { type?: string; image_url?: string };
        return block.type === "image" && block.image_url
          ? [{ kind: "image", source: block.image_url }]
          : [];
      });
      return [...images, ...stored.files.map((id) => ({ kind: "file", source: id }))];
    },
    faults: fake.faults,
    // [H23] What the fake shows of reactions, clicks and people's posts (ephemeral messages:
    // the fake knows only Alice's user id, not the suite's "alice").
    features: {
      botReactions(target, id) {
        const { channel, ts } = parseMessageRef(id, target.id);
        return Object.entries(reactionsOn(fake, channel, ts))
          .filter(([, users]) => users.includes(FAKE_BOT.userId))
          .map(([name]) => emojiOfSlackName(name));
      },
      click(target, id, actionId) {
        const { channel, ts } = parseMessageRef(id, target.id);
        return clickPayload(fake, FAKE_BOT, { channel, ts, actionId, user: ALICE }, fake.nextTs());
      },
      dmUserId: ALICE.id,
      post(target, text) {
        const m = fake.addMessage({
          channel: target.id,
          text,
          user: ALICE.id,
          name: ALICE.name,
          ...(target.threadId ? { threadTs: target.threadId } : {}),
        });
        return messageRef(m.channel, m.ts);
      },
    },
    inbound: {
      nativeOrigin: true,
      async post(target, message) {
        const bot = BOTS[message.author ?? "user"];
        const origin = message.origin;
        const stored = await fake.userPost({
          channel: target.id,
          text: message.text,
          ...(bot ? { bot } : {}),
          ...(target.threadId ? { threadTs: target.threadId } : {}),
          // Another herald bot's output carries its marks; the origin is in `event_type`.
          ...(bot && origin
            ? {
                metadata: unitMetadata({
                  accountId: "other",
                  idempotencyKey: `posted-${fake.nextTs()}`,
                  unitIndex: 0,
                  origin,
                }),
              }
            : {}),
        });
        return { platformMessageId: messageRef(stored.channel, stored.ts) };
      },
      async redeliver(platformMessageId) {
        const { channel, ts } = parseMessageRef(platformMessageId, "");
        const stored = fake.message(channel, ts);
        if (!stored) throw new Error(`slack harness: no message ${platformMessageId}`);
        await fake.deliverMessage(stored);
      },
      connectWebhook(handler, accountId) {
        fake.events.connect(accountId === "second" ? SECOND_FAKE_BOT : FAKE_BOT, handler);
      },
      async forge(kind, target) {
        const event = {
          type: "message",
          channel: target.id,
          channel_type: target.kind === "direct" ? "im" : "channel",
          user: ALICE.id,
          text: `a ${kind} delivery`,
          ts: fake.nextTs(),
        };
        const body = JSON.stringify(fake.events.envelope(FAKE_BOT, event));
        const now = Math.floor(Date.now() / 1_000);
        const headers =
          kind === "missing"
            ? {}
            : kind === "stale"
              ? signSlackRequest(FAKE_BOT.signingSecret, body, now - 6 * 60)
              : signSlackRequest(`${FAKE_BOT.signingSecret}x`, body, now);
        const response = await fake.events.post(FAKE_BOT, body, { headers });
        if (!response) throw new Error("slack harness: no webhook connected");
        return response;
      },
    },
    secondAccount: {
      accountId: "second",
      connection: {
        ...connection,
        token: SECOND_FAKE_BOT.token,
        signingSecret: SECOND_FAKE_BOT.signingSecret,
      },
    },
    close: () => fake.close(),
  };
}

/** A Slack contract harness: the SDK's `ContractHarness` for Slack connections. */
export type SlackContractHarness = ContractHarness<SlackConnection>;

/** Options of {@link slackHarness}. */
export type SlackHarnessOptions = {
  /** @defaultValue "hold" */
  unknownSendPolicy?: "hold" | "at_least_once";
};

/**
 * A Slack contract harness. The fake's text limit is Slack's; the adapter chunks to the
 * suite's small `maxLength` hint so multi-part tests stay cheap. The fake enforces a history read
 * limit a little looser than the adapter's pacing, so a reconciler that does not pace fails.
 */
export function slackHarness(options: SlackHarnessOptions = {}): SlackContractHarness {
  const unknownSendPolicy = options.unknownSendPolicy ?? "hold";
  return {
    name: unknownSendPolicy === "hold" ? "slack" : `slack, ${unknownSendPolicy}`,
    // No idempotency key on Slack: metadata reconciliation proves sent and not sent.
    guarantee: "reconcile-complete",
    module: { url: import.meta.url, exportName: "slackHarness", args: options },
    accountId: "main",
    secrets: [FAKE_BOT.token, FAKE_BOT.signingSecret],
    platformLimits: { maxLength: SLACK_TEXT_LIMIT },
    async platform({ maxLength, requestTimeoutMs, adapterDefaults }) {
      const fake = await FakeSlack.start({
        bots: [FAKE_BOT, OTHER_FAKE_BOT, SECOND_FAKE_BOT],
        historyIntervalMs: CONTRACT_HISTORY_INTERVAL_MS / 2,
      });
      return slackContractPlatform(fake, {
        apiUrl: fake.apiUrl,
        token: FAKE_BOT.token,
        signingSecret: FAKE_BOT.signingSecret,
        ...(adapterDefaults
          ? {}
          : { maxTextLength: Math.min(Math.max(maxLength, 2), SLACK_TEXT_LIMIT) }),
        ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
        unknownSendPolicy,
      });
    },
    createAdapter: (c) =>
      createSlackAdapter(testConfig(c), { token: c.token, secrets: [c.signingSecret] }),
    createReceiver: (c, sink) =>
      createSlackReceiver(testConfig(c), sink, { signingSecret: c.signingSecret }),
  };
}

/** The Slack harness for the shared contract suite (discovered by qa-channel's test run). */
export const contractHarness: SlackContractHarness = slackHarness();
