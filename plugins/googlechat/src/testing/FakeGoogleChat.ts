/**
 * A fake Google Chat for tests, on 127.0.0.1: the Chat API routes `@googleapis/chat` calls
 * (with requestId / messageId semantics, real thread rules and per-space write limits, see
 * `fakeRoutes.ts`), the certificate endpoints of both bearer-token modes, and the other side of
 * the app's HTTP endpoint — people posting in spaces, whose events the fake POSTs to the
 * connected webhook with a bearer token signed by its own keys, retried while the answer is not
 * 2xx (as Chat does). Faults come from the SDK's `FakePlatformServer`, rendered as AIP-193
 * errors.
 *
 * @module
 */
import { sleep } from "@herald/plugin-sdk/channel-message";
import { FakePlatformServer } from "@herald/plugin-sdk/testing";
import { CHAT_ISSUER_EMAIL } from "../config.ts";
import { type AfterStoreFault, type FakeCreateRequest, registerChatRoutes } from "./fakeRoutes.ts";
import {
  FakeChatStore,
  type FakeChatUser,
  type FakeSpace,
  type FakeStoredMessage,
} from "./fakeStore.ts";
import {
  type FakeAudience,
  FakeChatTokens,
  type FakeSigningKey,
  type FakeTokenClaims,
} from "./fakeTokens.ts";
import { googleErrorBody } from "./fakeWire.ts";

/** The app under test, as its messages name it. */
export const FAKE_APP: FakeChatUser = { name: "users/9000001", displayName: "herald", type: "BOT" };
/** Its OAuth access token on the fake. */
export const FAKE_ACCESS_TOKEN = "ya29.fake-herald-chat-app-token-Zq81";
/** A second app (the second account of the two-accounts test). */
export const SECOND_APP: FakeChatUser = {
  name: "users/9000002",
  displayName: "herald two",
  type: "BOT",
};
/** Its OAuth access token on the fake. */
export const SECOND_ACCESS_TOKEN = "ya29.fake-second-chat-app-token-Kp47";
/** A person. */
export const ALICE: FakeChatUser = { name: "users/1110001", displayName: "Alice", type: "HUMAN" };
/** Another app in the same spaces. */
export const OTHER_APP: FakeChatUser = {
  name: "users/2220002",
  displayName: "other app",
  type: "BOT",
};
/** The endpoint URL of the default audience (CASES C34 a). */
export const FAKE_ENDPOINT_URL = "https://bot.test/googlechat";
/** The project number of the project-number audience (CASES C34 b). */
export const FAKE_PROJECT_NUMBER = "1234567890";

/** Options of {@link FakeGoogleChat.start}. */
export type FakeGoogleChatOptions = {
  /** How event tokens are minted. @defaultValue endpoint URL {@link FAKE_ENDPOINT_URL} */
  audience?: FakeAudience;
  /** Message writes allowed per space per second (C37). @defaultValue no limit */
  writesPerSecondPerSpace?: number;
  /**
   * How long a `requestId` is remembered, in ms of {@link FakeGoogleChatOptions.clock}: after
   * it, a repeated create is no longer matched by its `requestId`, and its client-assigned
   * `messageId`, still taken, answers `409 ALREADY_EXISTS` (C41). Google documents no retention
   * for `requestId` (spaces.messages.create; PLATFORMS.md §9), so a client must not rely on one;
   * `0` remembers none. @defaultValue forever
   */
  requestIdRetentionMs?: number;
  /** Epoch-ms clock of the `requestId` retention. @defaultValue Date.now */
  clock?: () => number;
};

/** A webhook delivery: what the fake posted and what the app answered. */
export type FakeDelivery = { event: Record<string, unknown>; status: number };

/** The fake Google Chat. */
export class FakeGoogleChat {
  readonly server: FakePlatformServer;
  readonly store = new FakeChatStore();
  readonly tokens = new FakeChatTokens();
  readonly apps = new Map<string, FakeChatUser>([
    [FAKE_ACCESS_TOKEN, FAKE_APP],
    [SECOND_ACCESS_TOKEN, SECOND_APP],
  ]);
  /** Every authenticated create request, in order (wire-level checks: thread, reply option). */
  readonly creates: FakeCreateRequest[] = [];
  /** Every authenticated update request, in order (message name and `updateMask`). */
  readonly updates: Array<{ name: string; updateMask?: string }> = [];
  /** Every webhook delivery, in order. */
  readonly deliveries: FakeDelivery[] = [];
  audience: FakeAudience;
  /** Message writes allowed per space per second (C37); undefined = no limit. */
  writesPerSecondPerSpace: number | undefined;
  /** How long a `requestId` is remembered, in ms (C41); undefined = forever. */
  requestIdRetentionMs: number | undefined;
  readonly #afterStore: Array<{ fault: AfterStoreFault; skip: number }> = [];
  /** The webhook of each app (by app user name): every event goes to each. */
  readonly #webhooks = new Map<string, (request: Request) => Promise<Response>>();
  readonly #pending = new Set<Promise<unknown>>();
  #closed = false;

  private constructor(options: FakeGoogleChatOptions) {
    this.audience = options.audience ?? { type: "endpoint_url", url: FAKE_ENDPOINT_URL };
    this.writesPerSecondPerSpace = options.writesPerSecondPerSpace;
    this.requestIdRetentionMs = options.requestIdRetentionMs;
    this.server = new FakePlatformServer({
      wire: { errorBody: googleErrorBody },
      platform: "googlechat",
    });
    registerChatRoutes(this.server, {
      store: this.store,
      apps: this.apps,
      writesPerSecondPerSpace: () => this.writesPerSecondPerSpace,
      requestIdRetentionMs: () => this.requestIdRetentionMs,
      clock: options.clock ?? Date.now,
      onCreate: (request) => this.creates.push(request),
      onUpdate: (request) => this.updates.push(request),
      takeAfterStore: () => {
        const next = this.#afterStore[0];
        if (!next) return undefined;
        if (next.skip > 0) {
          next.skip -= 1;
          return undefined;
        }
        this.#afterStore.shift();
        return next.fault;
      },
    });
    this.server.app.get("/oauth2/v1/certs", (c) => c.json(this.tokens.certs("google")));
    this.server.app.get(`/service_accounts/v1/metadata/x509/${CHAT_ISSUER_EMAIL}`, (c) =>
      c.json(this.tokens.certs("chat")),
    );
  }

  /** Starts a fake on a free port of 127.0.0.1. */
  static async start(options: FakeGoogleChatOptions = {}): Promise<FakeGoogleChat> {
    const fake = new FakeGoogleChat(options);
    await fake.server.listen();
    return fake;
  }

  /** The Chat API root for the client's `rootUrl` (with a trailing slash). */
  get rootUrl(): string {
    return `${this.server.url}/`;
  }

  /** Certificate URLs for the receiver's `certsUrls`. */
  get certsUrls(): { idToken: string; chat: string } {
    return {
      idToken: `${this.server.url}/oauth2/v1/certs`,
      chat: `${this.server.url}/service_accounts/v1/metadata/x509/${CHAT_ISSUER_EMAIL}`,
    };
  }

  get faults() {
    return this.server.faults;
  }

  /** Creates a space (`SPACE`), a group chat or a DM with the app. */
  createSpace(
    spaceType: FakeSpace["spaceType"] = "SPACE",
    displayName?: string,
    /** The apps in it (user names); every app when absent. */
    apps?: string[],
  ): FakeSpace {
    return this.store.createSpace(spaceType, displayName, apps);
  }

  /**
   * The next create of a message (after `skip` others) is stored, then answered `fault`
   * (C37: a 500 after the fake stored it — the same requestId later returns the stored one).
   */
  answerAfterStore(fault: AfterStoreFault, skip = 0): void {
    this.#afterStore.push({ fault, skip });
  }

  /**
   * Where events for `app` are delivered (its receiver's `webhook`). Every app in a space gets
   * every event (as if each were mentioned).
   */
  connectWebhook(
    handler: (request: Request) => Promise<Response>,
    app: string = FAKE_APP.name,
  ): void {
    this.#webhooks.set(app, handler);
  }

  /**
   * A person (or another app) posts in a space — at the top level (a new thread) or in
   * `thread` — and the fake delivers the MESSAGE event to the webhook in the background.
   */
  userPost(input: { space: string; text: string; thread?: string; sender?: FakeChatUser }): {
    message: FakeStoredMessage;
    event: Record<string, unknown>;
  } {
    if (!this.store.spaces.has(input.space)) throw new Error(`fake: no space ${input.space}`);
    const message = this.store.add({
      space: input.space,
      thread: input.thread ?? this.store.newThread(input.space),
      sender: input.sender ?? ALICE,
      text: input.text,
    });
    const event = this.messageEvent(message);
    this.deliver(event);
    return { message, event };
  }

  /** The MESSAGE event of a stored message (the interaction event format). */
  messageEvent(message: FakeStoredMessage): Record<string, unknown> {
    return {
      type: "MESSAGE",
      eventTime: new Date().toISOString(),
      space: this.spaceJson(message.space),
      message: this.store.toJson(message),
      user: message.sender,
      common: {},
    };
  }

  /** The ADDED_TO_SPACE or REMOVED_FROM_SPACE event of `user` adding / removing the app. */
  membershipEvent(
    type: "ADDED_TO_SPACE" | "REMOVED_FROM_SPACE",
    space: string,
    user: FakeChatUser = ALICE,
  ): Record<string, unknown> {
    return {
      type,
      eventTime: new Date().toISOString(),
      space: this.spaceJson(space),
      user,
      common: {},
    };
  }

  /** Delivers the event of `messageName` again (a platform retry). */
  redeliver(messageName: string): void {
    const m = this.store.find(messageName);
    if (!m) throw new Error(`fake: no message ${messageName}`);
    this.deliver(this.messageEvent(m));
  }

  /**
   * Posts `event` to every connected webhook in the background, retrying non-2xx answers a few
   * times (as Chat does).
   */
  deliver(event: Record<string, unknown>): void {
    for (const app of this.#webhooks.keys()) {
      const work = (async () => {
        for (let attempt = 0; attempt < 5 && !this.#closed; attempt++) {
          const response = await this.post(event, { app });
          if (response.status < 300) return;
          await sleep(100 * (attempt + 1));
        }
      })().catch(() => {});
      this.#pending.add(work);
      void work.finally(() => this.#pending.delete(work));
    }
  }

  /**
   * Posts `event` once, with a bearer token: minted for the fake's audience with `claims`, or
   * `token` as given (`null`: no Authorization header).
   */
  async post(
    event: unknown,
    options: {
      claims?: FakeTokenClaims;
      token?: string | null;
      key?: FakeSigningKey;
      /** The app whose webhook gets it. @defaultValue the main app's */
      app?: string;
    } = {},
  ): Promise<Response> {
    const handler = this.#webhooks.get(options.app ?? FAKE_APP.name);
    if (!handler) throw new Error("fake: no webhook connected (connectWebhook)");
    const token =
      options.token === undefined
        ? this.tokens.mint(this.audience, options.claims, options.key)
        : options.token;
    const response = await handler(
      new Request("http://127.0.0.1/webhooks/googlechat", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        },
        body: JSON.stringify(event),
      }),
    );
    this.deliveries.push({ event: event as Record<string, unknown>, status: response.status });
    return response;
  }

  /** Waits for background deliveries, then stops the server. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#pending);
    await this.server.close();
  }

  private spaceJson(name: string): Record<string, unknown> {
    return this.store.spaceJson(name);
  }
}
