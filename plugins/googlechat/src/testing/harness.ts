/**
 * The Google Chat channel's contract harness: a fresh {@link FakeGoogleChat} per test, the real
 * adapter — the real `@googleapis/chat` client — and the real webhook receiver (bearer tokens
 * verified against the fake's certificates) against it. qa-channel's workspace test discovers
 * `contractHarness` and runs the shared contract suite on it.
 *
 * The guarantee is `native-key`: every create carries a requestId and a client-assigned
 * messageId, so a replay after a reset, a timeout or a crash returns the stored message.
 * Message ids are message names (`spaces/S/messages/M`); threads are thread names.
 *
 * @module
 */

import { parseMarkdown, renderPlainText } from "@herald/plugin-sdk/channel-message";
import type {
  ContractAuthor,
  ContractHarness,
  ContractPlatform,
  VisibleMessage,
} from "@herald/plugin-sdk/testing";
import { accessTokenCredentials } from "../auth.ts";
import {
  GOOGLE_CHAT_TEXT_LIMIT,
  type GoogleChatConfig,
  type GoogleChatConfigInput,
  googleChatConfigSchema,
} from "../config.ts";
import { createGoogleChatAdapter, createGoogleChatReceiver } from "../index.ts";
import { MARKUP_SYNTAX } from "../render.ts";
import {
  ALICE,
  FAKE_ACCESS_TOKEN,
  FAKE_APP,
  FAKE_ENDPOINT_URL,
  FAKE_PROJECT_NUMBER,
  FakeGoogleChat,
  OTHER_APP,
  SECOND_ACCESS_TOKEN,
  SECOND_APP,
} from "./FakeGoogleChat.ts";
import { directSpacesOf } from "./fakeFeatures.ts";
import type { FakeChatUser, FakeStoredMessage } from "./fakeStore.ts";
import { FakeSigningKey } from "./fakeTokens.ts";

/** What the adapter and receiver need to reach a fake (JSON, for crash-test children). */
export type GoogleChatConnection = {
  rootUrl: string;
  accessToken: string;
  /** The app's own user name (`appUser`). */
  appUser?: string;
  /** Absent: the config's default (Chat's real limit). */
  maxTextLength?: number;
  /** @defaultValue 5_000 */
  requestTimeoutMs?: number;
  audience:
    | { type: "endpoint_url"; url: string }
    | { type: "project_number"; projectNumber: string };
  certsUrls: { idToken: string; chat: string };
};

/**
 * The config used against a fake: short timeouts, fast previews and Chat's write limits
 * loosened (30/s per space) so the suite stays quick — the declared limits are asserted by the
 * plugin's own tests.
 */
export function testConfig(
  c: GoogleChatConnection,
  extra: Partial<GoogleChatConfigInput> = {},
): GoogleChatConfig {
  return googleChatConfigSchema.parse({
    credentials: { type: "access_token", tokenEnv: "GOOGLE_CHAT_ACCESS_TOKEN" },
    rootUrl: c.rootUrl,
    ...(c.appUser !== undefined ? { appUser: c.appUser } : {}),
    ...(c.maxTextLength !== undefined ? { maxTextLength: c.maxTextLength } : {}),
    requestTimeoutMs: c.requestTimeoutMs ?? 5_000,
    previewIntervalMs: 50,
    rateLimits: { perSpacePerSecond: 30, perSpacePerMinute: 1_800, perProjectPerMinute: 3_000 },
    receive: { audience: c.audience, certsUrls: c.certsUrls },
    ...extra,
  });
}

/** The text a person sees for a message: CommonMark rendered, as Chat shows it. */
export function displayedText(store: FakeGoogleChat["store"], m: FakeStoredMessage): string {
  const text = store.textOf(m);
  return m.markupSyntax === MARKUP_SYNTAX ? renderPlainText(parseMarkdown(text)) : text;
}

/** A stored message in the suite's neutral terms. */
export function visibleOf(fake: FakeGoogleChat, m: FakeStoredMessage): VisibleMessage {
  const v = fake.store.state.get(m.id) as VisibleMessage;
  return {
    ...v,
    id: m.name,
    text: displayedText(fake.store, m),
    ...(m.quoted ? { replyTo: m.quoted } : {}),
  };
}

/**
 * A running fake in the suite's terms: the SDK's `ContractPlatform`, plus the fake itself for
 * the plugin's own tests.
 */
export type GoogleChatContractPlatform = ContractPlatform<GoogleChatConnection> & {
  /** The running fake behind the platform-neutral face. */
  readonly fake: FakeGoogleChat;
};

/** Who posts for each of the suite's authors. */
const AUTHORS: Record<ContractAuthor, FakeChatUser> = {
  user: ALICE,
  other_bot: OTHER_APP,
  self: FAKE_APP,
  second_self: SECOND_APP,
};

/** The `onClick.action` of the button calling `fn` on a message's cards, if any. */
function buttonOf(
  cards: unknown[],
  fn: string,
): { function: string; parameters?: Array<{ key: string; value: string }> } | undefined {
  for (const card of cards as Array<{ card?: { sections?: Array<{ widgets?: unknown[] }> } }>) {
    for (const section of card.card?.sections ?? []) {
      for (const widget of (section.widgets ?? []) as Array<{
        buttonList?: { buttons?: Array<{ onClick?: { action?: { function: string } } }> };
      }>) {
        for (const button of widget.buttonList?.buttons ?? []) {
          if (button.onClick?.action?.function === fn) return button.onClick.action;
        }
      }
    }
  }
  return undefined;
}

/** Wraps a running fake in the suite's platform-neutral face. */
export function googleChatContractPlatform(
  fake: FakeGoogleChat,
  connection: GoogleChatConnection,
): GoogleChatContractPlatform {
  directSpacesOf(fake.store).set(ALICE.name, fake.createSpace("DIRECT_MESSAGE").name);
  return {
    connection,
    fake,
    createTarget(kind) {
      const space = fake.createSpace(kind === "direct" ? "DIRECT_MESSAGE" : "SPACE");
      return { kind, id: space.name };
    },
    createThread(target) {
      // A person's message starts the thread (not delivered: it is only the anchor).
      const root = fake.store.add({
        space: target.id,
        thread: fake.store.newThread(target.id),
        sender: ALICE,
        text: "a question worth a thread",
      });
      return { kind: "thread", id: target.id, parentId: target.id, threadId: root.thread };
    },
    visible(target) {
      return fake.store
        .messages({ space: target.id })
        .filter((m) =>
          target.threadId !== undefined ? !m.root && m.thread === target.threadId : m.root,
        )
        .map((m) => visibleOf(fake, m));
    },
    calls: () => fake.server.calls,
    faults: fake.faults,
    inbound: {
      async post(target, message) {
        const sender = AUTHORS[message.author ?? "user"];
        const { message: posted } = fake.userPost({
          space: target.id,
          text: message.text,
          sender,
          ...(target.threadId !== undefined ? { thread: target.threadId } : {}),
        });
        return { platformMessageId: posted.name };
      },
      async redeliver(platformMessageId) {
        fake.redeliver(platformMessageId);
      },
      connectWebhook(handler, accountId) {
        fake.connectWebhook(handler, accountId === "second" ? SECOND_APP.name : FAKE_APP.name);
      },
      async forge(kind, target) {
        const event = {
          type: "MESSAGE",
          eventTime: new Date().toISOString(),
          space: { name: target.id, type: "ROOM", spaceType: "SPACE" },
          message: {
            name: `${target.id}/messages/forged${Date.now()}`,
            sender: ALICE,
            text: `a ${kind} delivery`,
            thread: { name: `${target.id}/threads/forged` },
          },
          user: ALICE,
        };
        if (kind === "missing") return fake.post(event, { token: null });
        if (kind === "forged") return fake.post(event, { key: new FakeSigningKey() });
        const past = Math.floor(Date.now() / 1_000) - 7_200;
        return fake.post(event, { claims: { iat: past, exp: past + 3_600 } });
      },
      forgeKinds: ["forged", "missing", "stale"] as const,
    },
    features: {
      // [H23] Alice clicks a button of a bot message: the CARD_CLICKED event Chat would POST.
      click(target, platformMessageId, actionId) {
        // The button is on the message's card (a card unit follows the text in the same
        // space): Chat sends the button's own parameters back.
        const carrier = fake.store
          .messages({ space: target.id })
          .filter((m) => m.cardsV2 && buttonOf(m.cardsV2, actionId))
          .at(-1);
        const message = carrier ?? fake.store.find(platformMessageId);
        const parameters = carrier
          ? buttonOf(carrier.cardsV2 ?? [], actionId)?.parameters
          : undefined;
        return {
          type: "CARD_CLICKED",
          eventTime: new Date().toISOString(),
          space: fake.store.spaceJson(target.id),
          ...(message ? { message: fake.store.toJson(message) } : {}),
          user: ALICE,
          action: {
            actionMethodName: actionId,
            ...(parameters ? { parameters } : {}),
          },
        };
      },
      // Alice's DM with the app exists (an app can only find a DM, not create one).
      dmUserId: ALICE.name,
    },
    secondAccount: {
      accountId: "second",
      connection: { ...connection, accessToken: SECOND_ACCESS_TOKEN, appUser: SECOND_APP.name },
    },
    close: () => fake.close(),
  };
}

/** Options of {@link googleChatHarness}. */
export type GoogleChatHarnessOptions = {
  /** The audience mode of the receiver. @defaultValue "endpoint_url" */
  audience?: "endpoint_url" | "project_number";
};

/** A Google Chat contract harness: the SDK's `ContractHarness` for Google Chat connections. */
export type GoogleChatContractHarness = ContractHarness<GoogleChatConnection>;

/**
 * A Google Chat contract harness. The fake's text limit is Chat's; the adapter chunks to the
 * suite's small `maxLength` hint (at least 16) so multi-part tests stay cheap.
 */
export function googleChatHarness(
  options: GoogleChatHarnessOptions = {},
): GoogleChatContractHarness {
  const mode = options.audience ?? "endpoint_url";
  return {
    name: mode === "endpoint_url" ? "googlechat" : "googlechat, project-number audience",
    guarantee: "native-key",
    module: { url: import.meta.url, exportName: "googleChatHarness", args: options },
    accountId: "main",
    secrets: [FAKE_ACCESS_TOKEN, SECOND_ACCESS_TOKEN],
    platformLimits: { maxLength: GOOGLE_CHAT_TEXT_LIMIT },
    async platform({ maxLength, requestTimeoutMs, adapterDefaults }) {
      const audience =
        mode === "endpoint_url"
          ? ({ type: "endpoint_url", url: FAKE_ENDPOINT_URL } as const)
          : ({ type: "project_number", projectNumber: FAKE_PROJECT_NUMBER } as const);
      const fake = await FakeGoogleChat.start({ audience });
      return googleChatContractPlatform(fake, {
        rootUrl: fake.rootUrl,
        accessToken: FAKE_ACCESS_TOKEN,
        appUser: FAKE_APP.name,
        ...(adapterDefaults
          ? {}
          : { maxTextLength: Math.min(Math.max(maxLength, 16), GOOGLE_CHAT_TEXT_LIMIT) }),
        ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
        audience,
        certsUrls: fake.certsUrls,
      });
    },
    createAdapter: (c) =>
      createGoogleChatAdapter(testConfig(c), accessTokenCredentials(c.accessToken)),
    createReceiver: (c, sink) => createGoogleChatReceiver(testConfig(c), sink),
  };
}

/** The Google Chat harness for the shared contract suite (discovered by qa-channel's test run). */
export const contractHarness: GoogleChatContractHarness = googleChatHarness();
