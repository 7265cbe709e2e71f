/**
 * Accounts and receivers (DESIGN §8, [H15] 1): an async per-account factory owns the platform
 * client and the identity the platform reports (Telegram `getMe`, Slack `auth.test`, Matrix
 * `/whoami`, Discord READY), so the identity is known before the first echo check. The gateway
 * opens every account concurrently, starts its receiver and supervises it: a failed start or a
 * dropped connection is retried with backoff, rejected credentials stop that account only.
 *
 * @module
 */
import {
  type ChannelMessageAdapter,
  HeraldError,
  type HeraldLogger,
  type ReceiverSink,
} from "@herald/core";

/** What the host (the gateway) hands a plugin when it builds the adapter and receiver. */
export type ChannelPluginDeps = {
  /** Account id inside the channel (one bot); several accounts may run side by side. */
  accountId: string;
  logger: HeraldLogger;
  /** Epoch-ms clock. */
  clock: () => number;
  /**
   * Reads a secret named in the config (an env var name or a file path), never from the config
   * itself. @throws when the secret is missing, naming the variable.
   */
  secret(name: string): string;
};

/** The state of a receiver: `connecting` (starting or reconnecting), `up`, `down` (stopped or broken). */
export type ReceiverState = "connecting" | "up" | "down";

/** What `receiver.health()` reports. */
export type ReceiverHealth = {
  state: ReceiverState;
  /** Epoch ms since this state holds. */
  since: number;
  /** Why (the last error, "stopped", the fix when credentials were rejected). */
  detail?: string;
};

/**
 * A running inbound receiver: a polling loop or socket (`start` / `stop`), or a webhook handler.
 *
 * Contract of `start(signal)`: resolves once the receiver runs (polling loop entered, socket
 * connected); throws when it cannot start (the gateway retries with backoff, or stops the
 * account on a {@link ChannelAccountError}); `signal` aborts a start still under way when the
 * gateway stops. While it runs, `health()` says `connecting` during self-healing retries and
 * `down` once it gave up (the gateway then restarts it with backoff).
 */
export type ChannelReceiver = {
  start?(signal?: AbortSignal): Promise<void>;
  stop?(): Promise<void>;
  /** The receiver's state. Without it the gateway assumes `up` after `start` resolved. */
  health?(): ReceiverHealth;
  /**
   * Handles a webhook request (mounted by the gateway at `/webhooks/:channel/:account`).
   * Authenticate before anything is recorded; answer 401 on failure.
   */
  webhook?(request: Request): Promise<Response>;
  /**
   * The largest webhook body this route accepts, in bytes, sized from the platform's documented
   * maximum. The gateway answers 413 above it before reading the rest, and the request never
   * reaches `webhook()`. A config's per-account `maxBodyBytes` overrides it.
   * @defaultValue the gateway's default, 1 MiB
   */
  maxWebhookBodyBytes?: number;
};

/** Who an account is on the platform, as the platform reported it at open. */
export type ChannelIdentity = {
  /** The bot's own user id (compared by echo checks). */
  id: string;
  /** Other ids naming the bot (Slack `bot_id`, an app id, a team id). */
  otherIds?: readonly string[];
  /** Display or user name, e.g. Telegram `username`. */
  name?: string;
};

/** What a plugin's `createAccount` gets: the plugin deps plus the receiver sink. */
export type ChannelAccountDeps = ChannelPluginDeps & {
  /** Where this account's receiver delivers (`receive(raw, { accountId })`, watermarks, cursors). */
  sink: ReceiverSink;
  /** Aborted when the gateway stops while the account is still opening. */
  signal: AbortSignal;
};

/** One opened account: its adapter, its receiver (if it receives) and how to close both. */
export type ChannelAccount = {
  adapter: ChannelMessageAdapter;
  receiver?: ChannelReceiver;
  /** The identity the platform reported (shown in logs and `/healthz`). */
  identity?: ChannelIdentity;
  /** Releases the platform client (sockets, timers). Called after the receiver stopped. */
  close(): Promise<void>;
};

/**
 * An account cannot run until someone fixes its configuration: rejected credentials (HTTP 401,
 * Slack `invalid_auth`), a missing permission. The gateway stops that account — without
 * retrying — and starts the others; the message names the fix and `herald doctor`.
 */
export class ChannelAccountError extends HeraldError {
  readonly channel: string;
  readonly accountId: string;
  /** What to do, e.g. "check the token in TELEGRAM_BOT_TOKEN with @BotFather". */
  readonly fix: string;
  constructor(
    channel: string,
    accountId: string,
    problem: string,
    fix: string,
    options?: ErrorOptions,
  ) {
    super(
      "HERALD_ACCOUNT_UNUSABLE",
      `${channel}/${accountId}: ${problem} → fix: ${fix}; then check with \`herald doctor\``,
      options,
    );
    this.channel = channel;
    this.accountId = accountId;
    this.fix = fix;
  }
}

/** Whether `error` says the account cannot run until fixed (by code, across package copies). */
export function isChannelAccountError(error: unknown): error is ChannelAccountError {
  return (error as { code?: unknown } | null)?.code === "HERALD_ACCOUNT_UNUSABLE";
}

/**
 * A receiver's health, kept by the receiver: `set` records a state change with the time, and
 * repeated sets of the same state keep the first `since`.
 *
 * @example
 * const health = receiverHealth(deps.clock);
 * health.set("up");
 * return { start, stop, health: health.get };
 */
export function receiverHealth(clock: () => number = Date.now): {
  get(): ReceiverHealth;
  set(state: ReceiverState, detail?: string): void;
} {
  let current: ReceiverHealth = { state: "down", since: clock(), detail: "not started" };
  return {
    get: () => current,
    set(state, detail) {
      if (current.state === state && current.detail === detail) return;
      const since = current.state === state ? current.since : clock();
      current = detail === undefined ? { state, since } : { state, since, detail };
    },
  };
}
