/**
 * The contract harness types: what a channel plugin hands the shared contract suite
 * (`describeChannelContract` in `@herald/plugin-qa-channel/contract`, DESIGN §9). Every
 * channel's `./testing` export provides one as `contractHarness`, typed with these — they live
 * in the SDK so a published plugin's `./testing` types depend on `@herald/plugin-sdk` only,
 * never on the suite's package. Types only: the suite and its options stay in qa-channel.
 *
 * The harness speaks platform-neutral terms only: targets are herald `MessageTarget`s, visible
 * state is `VisibleMessage`s, faults are `PlatformFault`s. Optional capabilities (threads,
 * inbound, typing, native origin, crash tests) are declared by their presence; a test that
 * needs one the harness lacks is registered as **skipped with the reason in its title**, never
 * silently dropped.
 *
 * @module
 */
import type {
  ChannelMessageAdapter,
  ChannelPlugin,
  ChannelReceiver,
  ChannelReceiverSink,
  MessageOrigin,
  MessageTarget,
} from "../channel-message/index.ts";
import type { FaultTarget, PlatformFault } from "./faults.ts";
import type { VisibleMessage } from "./VisibleState.ts";

/** JSON data (connection details must survive being handed to a child process). */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue | undefined };

/** Options the suite starts each platform with. A harness may ignore a hint it cannot honour. */
export type ContractPlatformOptions = {
  /**
   * Hint: the text limit the adapter should chunk to, in its own length unit, kept small so
   * multi-part tests stay cheap (the suite reads the real limit from the adapter's
   * `capabilities.text.maxLength`).
   */
  maxLength: number;
  /**
   * Hint: `"webhook"` asks for a platform and connection whose receiver is the channel's
   * webhook receiver (Telegram's webhook mode with its secret token), for the webhook
   * authentication test. A harness whose channel has no webhook ignores it.
   * @defaultValue the channel's usual receive path
   */
  receive?: "webhook";
  /**
   * Hint: the adapter's request timeout in ms (`capabilities.delivery.requestTimeoutMs`), kept
   * short for the tests whose platform answers later than the client waits. Absent: the
   * harness's usual timeout. A harness that ignores it makes those tests slower, not wrong.
   */
  requestTimeoutMs?: number;
  /**
   * Start the platform at its real limits ({@link ContractHarness.platformLimits}) and hand a
   * connection with which `createAdapter` uses the adapter's **default** text limit (its
   * config's default), ignoring `maxLength`: the suite checks that default against the
   * platform's real maximum. @defaultValue false
   */
  adapterDefaults?: boolean;
};

/** A platform call the fake saw (the SDK's `FakePlatformServer.calls` fit as they are). */
export type ContractCall = {
  /** The op the fake tags the call with (`send`, `edit`, `delete`, `typing`, `read`, …). */
  op: string;
  /** Epoch ms the fake handled it. */
  at: number;
  /** How it ended: `ok 200`, `status 503`, `rate_limit`, `reset_after_accept`, `delayed`, … */
  outcome: string;
};

/** Who posts an inbound message. */
export type ContractAuthor =
  /** A person. */
  | "user"
  /** Another bot account (not this adapter's). */
  | "other_bot"
  /** This adapter's own bot account: the platform echoing the bot's own message. */
  | "self"
  /** The bot of {@link ContractPlatform.secondAccount} (only when the platform has one). */
  | "second_self";

/**
 * How {@link ContractInbound.forge} breaks a webhook delivery's authentication:
 * - `forged`: signed (or tokened) with the wrong secret;
 * - `missing`: no signature / token header at all;
 * - `stale`: correctly signed, but its timestamp lies outside the platform's replay window.
 */
export type ContractForgeKind = "forged" | "missing" | "stale";

/** An inbound message to post on the platform. */
export type ContractInboundPost = {
  text: string;
  /** @defaultValue "user" */
  author?: ContractAuthor;
  /**
   * herald origin metadata to attach natively (only when {@link ContractInbound.nativeOrigin};
   * the suite never passes it otherwise).
   */
  origin?: MessageOrigin;
};

/** Inbound side of a fake platform: people (and bots) posting to the bot under test. */
export type ContractInbound = {
  /**
   * Posts a message in `target`; the platform delivers it to the bot through the channel's
   * real receive path (event stream, polling, webhook).
   * @returns the platform message id.
   */
  post(target: MessageTarget, message: ContractInboundPost): Promise<{ platformMessageId: string }>;
  /**
   * Delivers the event of an earlier message again, as a platform retry does: a **new delivery
   * id** (sequence number, `update_id`, delivery header) for the same message, so dedupe must
   * key on the message, not on the delivery.
   */
  redeliver(platformMessageId: string): Promise<void>;
  /** The platform carries herald origin metadata on messages (Slack `metadata`, QA metadata). */
  nativeOrigin?: boolean;
  /**
   * For webhook channels: where the platform posts events (the receiver's `webhook`), for the
   * harness's account or — with `accountId` — for {@link ContractPlatform.secondAccount}'s.
   */
  connectWebhook?(handler: (request: Request) => Promise<Response>, accountId?: string): void;
  /**
   * Webhook channels: hands the connected webhook one message event in `target` whose
   * authentication is broken as `kind` says, exactly as an attacker would post it.
   * Absent: the webhook authentication test is skipped.
   * @returns the receiver's answer (the suite expects 401).
   */
  forge?(kind: ContractForgeKind, target: MessageTarget): Promise<Response>;
  /**
   * The {@link ContractForgeKind}s the platform's scheme has (a secret token without a
   * timestamp has no `stale`); the others are skipped with the reason.
   * @defaultValue every kind
   */
  forgeKinds?: readonly ContractForgeKind[];
};

/**
 * A second bot account of the same channel on the same platform (two accounts test): its own
 * token / identity, seeing the same conversations.
 */
export type ContractSecondAccount<TConnection extends JsonValue = JsonValue> = {
  /** Its account id inside the channel (not the harness's `accountId`). */
  accountId: string;
  /** What {@link ContractHarness.createAdapter} / `createReceiver` need to act as it. */
  connection: TConnection;
};

/**
 * A running fake platform, one per test. Every method may be sync or async.
 *
 * @typeParam TConnection - what the adapter needs to reach it (JSON).
 */
/**
 * [H23] What the fake platform shows of the features beyond text, for the contract suite's
 * `features` area (each test is also gated by the adapter's capabilities). Absent members: the
 * tests that need them are skipped with the reason.
 */
export type ContractFeatures = {
  /** The emoji the bot's own reactions show on a message. */
  botReactions?(target: MessageTarget, platformMessageId: string): Promise<string[]> | string[];
  /** The files a visible message carries (name and size in bytes), in order. */
  filesOf?(message: VisibleMessage): Array<{ name: string; sizeBytes: number }>;
  /** How many file uploads the platform accepted so far (orphans included). */
  uploads?(): number;
  /**
   * A user clicks button `actionId` on a bot message: returns the raw event the channel's
   * receiver would hand `runtime.receive` (redeliver it by passing it twice).
   */
  click?(
    target: MessageTarget,
    platformMessageId: string,
    actionId: string,
  ): Promise<unknown> | unknown;
  /** The texts of the ephemeral messages `userId` sees in `target`. */
  ephemeralFor?(target: MessageTarget, userId: string): Promise<string[]> | string[];
  /** A user id the bot may open a DM with. */
  dmUserId?: string;
  /** A person posts `text` in `target` (for history). @returns its platform id */
  post?(target: MessageTarget, text: string): Promise<string> | string;
};

export type ContractPlatform<TConnection extends JsonValue = JsonValue> = {
  /**
   * What {@link ContractHarness.createAdapter} needs to reach this platform: base URL, tokens,
   * limits. JSON, because crash tests hand it to a child process.
   */
  readonly connection: TConnection;
  /** Creates a fresh conversation and returns the target the adapter sends to. */
  createTarget(kind: "direct" | "group"): Promise<MessageTarget> | MessageTarget;
  /**
   * Creates a thread inside a group target (anchored on a user's message). Absent: thread
   * tests are skipped.
   */
  createThread?(target: MessageTarget): Promise<MessageTarget> | MessageTarget;
  /**
   * Messages visible in `target`, in platform order, deleted ones excluded. A target with a
   * `threadId` shows that thread only; otherwise top-level messages only.
   */
  visible(target: MessageTarget): Promise<VisibleMessage[]> | VisibleMessage[];
  /**
   * Every platform call the fake saw so far, oldest first (faulted ones included). Absent: the
   * tests that bound retries by counting calls are skipped.
   */
  calls?(): readonly ContractCall[];
  /**
   * The herald origin the platform **stored** on a message the adapter sent, read from the
   * platform's own record of it (Slack `metadata`, QA metadata) — never from what the harness
   * attached. Absent (a platform without message metadata): the origin-on-send test is skipped.
   */
  storedOrigin?(message: VisibleMessage): MessageOrigin | undefined;
  /**
   * The attachments the platform stored on a message the adapter sent, from the platform's own
   * record: each its platform kind (`photo`, `document`, …) and its source as sent (a URL or a
   * file id). Absent: the attachment test is skipped.
   */
  attachmentsOf?(message: VisibleMessage): Array<{ kind: string; source: string }>;
  /**
   * Ends the platform's dedupe window for every client key now: a key posted again makes a new
   * message (`VisibleState.keyTtlMs = 0`). Absent: the window-expiry test is skipped.
   */
  expireKeys?(): void;
  /** Whether this bot's typing indicator shows in `target` now. Absent: typing test skipped. */
  isTyping?(target: MessageTarget): Promise<boolean> | boolean;
  /** Fault scripting in platform-neutral terms; the fake renders them in its wire format. */
  readonly faults: {
    /**
     * Scripts `fault` for the next matching call. Ops: `send`, `edit`, `delete`, `typing`,
     * `read`, and — on a platform with a native stream — `stream_begin`, `stream_append`,
     * `stream_stop`.
     */
    failNext(fault: PlatformFault, target?: FaultTarget): unknown;
    /** Refuses new connections (`ECONNREFUSED`) until the returned function is called. */
    refuseConnections(): Promise<() => Promise<void>>;
    /**
     * Drops every open connection now without a close (event streams, long polls, sockets:
     * WebSocket code 1006), as a network blip does; the platform keeps listening. Absent: the
     * receiver reconnect test is skipped.
     */
    dropConnections?(): void;
  };
  /** The inbound side. Absent (a send-only channel): inbound tests are skipped. */
  readonly inbound?: ContractInbound;
  /**
   * A second bot account of this channel on this platform. Absent: the two-accounts test is
   * skipped.
   */
  readonly secondAccount?: ContractSecondAccount<TConnection>;
  /** Stops the platform. */
  /** [H23] Reactions, files, clicks, ephemeral messages as the platform shows them. */
  readonly features?: ContractFeatures;
  close(): Promise<void>;
};

/**
 * How a crash-test child process loads the harness again: `import(url)[exportName]`, called
 * with `args` when it is a function (a harness factory).
 */
export type ContractHarnessModule = {
  /** `import.meta.url` of the module exporting the harness. */
  url: string;
  /** @defaultValue "contractHarness" */
  exportName?: string;
  /** Arguments for a factory export (JSON). */
  args?: JsonValue;
};

/**
 * What the adapter promises for a send whose outcome is unknown — a connection reset or a
 * timeout after the request left, a crash after the platform accepted (DESIGN §3 "Replay
 * gate", §9). Declared by the harness and checked against the adapter's capabilities (a
 * mismatch fails the run); the unknown-send, timeout and crash tests assert exactly it.
 *
 * - `native-key`: the platform deduplicates a client key (`capabilities.delivery.idempotencyKey`)
 *   → exactly once: 0 duplicates, `sent`.
 * - `reconcile-complete`: `send.reconcileUnknownSend` whose `not_sent` is proof
 *   (`capabilities.delivery.reconcile.notSent: "complete"`) → exactly once: 0 duplicates, `sent`.
 * - `reconcile-best-effort`: a reconciler that may miss a stored message or answer `unresolved`
 *   (`notSent: "best_effort"`, the default) — after it, `unknownSendPolicy` decides → at most one
 *   duplicate per intent, or held for an operator.
 * - `at-least-once`: no key, no reconciler, `unknownSendPolicy: "at_least_once"` → `sent`, every
 *   part visible, at most one duplicate per intent.
 * - `hold`: no key, no reconciler, `unknownSendPolicy: "hold"` (the default) → held for an
 *   operator (`herald queue ls` shows "(held)"), nothing resent.
 */
export type ContractGuarantee =
  | "native-key"
  | "reconcile-complete"
  | "reconcile-best-effort"
  | "at-least-once"
  | "hold";

/**
 * What a channel plugin hands the contract suite.
 *
 * @example
 * export const contractHarness: ContractHarness<{ url: string; token: string }> = {
 *   name: "telegram",
 *   guarantee: "hold",
 *   module: { url: import.meta.url },
 *   platform: async ({ maxLength }) => startFakeTelegram({ maxLength }),
 *   createAdapter: (c) => createTelegramAdapter({ apiRoot: c.url, maxLength: 4096 }, c.token),
 *   createReceiver: (c, sink) => createTelegramPoller(c, sink),
 * };
 */
export type ContractHarness<TConnection extends JsonValue = JsonValue> = {
  /** Shown in test titles, e.g. `"telegram"`. */
  name: string;
  /**
   * What the adapter promises for a send whose outcome is unknown (see
   * {@link ContractGuarantee}); it must match the adapter's capabilities.
   */
  guarantee: ContractGuarantee;
  /** Where crash-test child processes find this harness. Absent: crash tests are skipped. */
  module?: ContractHarnessModule;
  /** Starts a fresh fake platform on 127.0.0.1 (the suite starts one per test). */
  platform(options: ContractPlatformOptions): Promise<ContractPlatform<TConnection>>;
  /** Builds the adapter under test; it must talk to the platform with the channel's real client. */
  createAdapter(connection: TConnection): ChannelMessageAdapter;
  /**
   * Builds the channel's real receiver, delivering into `sink`. Needed with
   * `platform.inbound`; without it inbound tests are skipped.
   */
  createReceiver?(connection: TConnection, sink: ChannelReceiverSink): ChannelReceiver;
  /**
   * The platform's real limits, e.g. `{ maxLength: 4096 }` for Telegram (UTF-16 units): with
   * {@link ContractPlatformOptions.adapterDefaults} the suite checks the adapter's default
   * chunking against them. Absent: the real-maximum test is skipped.
   */
  platformLimits?: { maxLength: number };
  /** The adapter's account id inside the channel. @defaultValue "contract" */
  accountId?: string;
  /**
   * Secrets the harness hands the adapter and receiver (bot tokens, webhook secrets, signing
   * keys): the secrets test fails when any of them appears in a log line or a stored failure.
   * The first is the credential the adapter's own calls carry (the bot token): the test makes
   * the platform echo it in error answers. **Required**: a harness without it fails the
   * `secrets.never-logged` test with what to add; `[]` declares a channel with no credentials
   * (the test is then skipped with that reason).
   */
  secrets?: readonly string[];
  /**
   * Where the platform announces a 429's wait: the `Retry-After` header, the error body, or
   * both. The rate-limit tests that put the wait in one place only run for the places declared
   * (a platform that sends only the header passes without a body wait).
   * @defaultValue "both"
   */
  retryAfter?: ContractRetryAfter;
  /**
   * The plugin as a gateway loads it: the suite validates `config(connection)` with the plugin's
   * `configSchema` (strict, defaults applied), opens the account with `createAccount` (secrets
   * read from `env`), sends through the adapter it returns and — with `platform.inbound` —
   * receives through its receiver, then closes it — so a config default that breaks the account
   * (a request timeout shorter than the long-poll wait) fails here. Absent: the `plugin.load`
   * test is skipped, its reason saying what to add.
   */
  plugin?: ContractPluginLoad<TConnection>;
};

/** Where a platform announces a 429's wait (see {@link ContractHarness.retryAfter}). */
export type ContractRetryAfter = "header" | "body" | "both";

/**
 * How the suite loads the plugin as the gateway does (see {@link ContractHarness.plugin}).
 *
 * @example
 * plugin: {
 *   plugin: httpChatPlugin, // the package's default export
 *   config: (c) => ({ baseUrl: c.baseUrl, tokenEnv: "HTTPCHAT_TOKEN", webhookSecretEnv: "HTTPCHAT_WEBHOOK_SECRET" }),
 *   env: (c) => ({ HTTPCHAT_TOKEN: c.token, HTTPCHAT_WEBHOOK_SECRET: c.webhookSecret }),
 * },
 */
export type ContractPluginLoad<TConnection extends JsonValue = JsonValue> = {
  /** The plugin package's default export (`defineChannelPlugin({ … })`). */
  plugin: ChannelPlugin<unknown>;
  /** The account's config as a user writes it in `herald.config.json` (only required fields). */
  config(connection: TConnection): JsonValue;
  /** The env vars the config names for its secrets, with their values. */
  env(connection: TConnection): Record<string, string>;
};
