/**
 * Supervises one channel account (DESIGN §8, [H15] 1; [H17] 5): opens it (the plugin's async
 * `createAccount`, which checks the credentials against the platform, or the older
 * `createAdapter` + `createReceiver`), starts its receiver and watches its health. A failed
 * open or start and a receiver that went `down` are retried with exponential backoff; rejected
 * credentials ({@link ChannelAccountError}) stop this account with the fix in its health, and
 * never touch the other accounts.
 *
 * @module
 */
import { type HeraldLogger, type MessageRuntime, type ReceiverSink, sleep } from "@herald/core";
import {
  type ChannelAccount,
  type ChannelIdentity,
  type ChannelReceiver,
  isChannelAccountError,
  openChannelAccount,
  type ReceiverHealth,
  type ReceiverState,
} from "@herald/plugin-sdk/channel-message";
import type { LoadedChannel } from "../plugins/loadPlugins.ts";

/** Retry timing of a supervisor. */
export type SupervisionOptions = {
  /** First wait after a failure, in ms; doubled per consecutive failure. @defaultValue 1_000 */
  backoffBaseMs?: number;
  /** Longest wait between attempts, in ms. @defaultValue 60_000 */
  backoffMaxMs?: number;
  /** How often a running receiver's `health()` is checked, in ms. @defaultValue 1_000 */
  healthCheckMs?: number;
};

/** One account's health as `/healthz` shows it. */
export type AccountHealth = ReceiverHealth & {
  channel: string;
  account: string;
  /** Restarts after a failed open/start or a dropped connection. */
  restarts: number;
  /** True when the account was stopped for good (credentials rejected): fix and restart. */
  stopped: boolean;
  identity?: ChannelIdentity;
};

/** Supervises one account; see the module doc. */
export class AccountSupervisor {
  readonly channel: string;
  readonly account: string;
  readonly #loaded: LoadedChannel;
  readonly #sink: ReceiverSink;
  readonly #runtime: Pick<MessageRuntime, "addAdapter" | "removeAdapter">;
  readonly #log: HeraldLogger;
  readonly #clock: () => number;
  readonly #options: Required<SupervisionOptions>;
  readonly #onChange: (health: AccountHealth) => void;
  readonly #controller = new AbortController();
  #health: ReceiverHealth;
  #restarts = 0;
  #stopped = false;
  #opened: ChannelAccount | undefined;
  #loop: Promise<void> | undefined;
  #firstSettled!: () => void;
  #failure: string | undefined;
  /** Settles once the first attempt to open and start settled (up, failed or stopped). */
  readonly firstAttempt: Promise<void>;

  constructor(options: {
    loaded: LoadedChannel;
    sink: ReceiverSink;
    runtime: Pick<MessageRuntime, "addAdapter" | "removeAdapter">;
    logger: HeraldLogger;
    clock: () => number;
    supervision?: SupervisionOptions;
    onChange?: (health: AccountHealth) => void;
  }) {
    this.#loaded = options.loaded;
    this.channel = options.loaded.plugin.id;
    this.account = options.loaded.account;
    this.#sink = options.sink;
    this.#runtime = options.runtime;
    this.#log = options.logger.child({ channel: this.channel, account: this.account });
    this.#clock = options.clock;
    this.#options = {
      backoffBaseMs: options.supervision?.backoffBaseMs ?? 1_000,
      backoffMaxMs: options.supervision?.backoffMaxMs ?? 60_000,
      healthCheckMs: options.supervision?.healthCheckMs ?? 1_000,
    };
    this.#onChange = options.onChange ?? (() => {});
    this.#health = { state: "down", since: this.#clock(), detail: "not started" };
    this.firstAttempt = new Promise((resolve) => {
      this.#firstSettled = resolve;
    });
  }

  /**
   * Why the last attempt to open or start this account failed (the error's message), or
   * undefined while it is open. A receiver still connecting after a good start (Telegram's first
   * `getUpdates`) is not a failure: warn on this, not on `health().state`.
   */
  get failure(): string | undefined {
    return this.#failure;
  }

  /** The receiver once the account is open (webhooks are routed to it). */
  get receiver(): ChannelReceiver | undefined {
    return this.#opened?.receiver;
  }

  /** This account's health now. */
  health(): AccountHealth {
    const receiver = this.#health.state === "up" ? this.#opened?.receiver?.health?.() : undefined;
    const h = receiver ?? this.#health;
    return {
      ...h,
      channel: this.channel,
      account: this.account,
      restarts: this.#restarts,
      stopped: this.#stopped,
      ...(this.#opened?.identity ? { identity: this.#opened.identity } : {}),
    };
  }

  /** Starts supervising in the background. */
  start(): void {
    this.#loop ??= this.#run().catch((error: unknown) => {
      this.#log.error({ err: error }, "account supervisor failed");
    });
  }

  /** Stops the receiver and closes the account. */
  async stop(): Promise<void> {
    this.#controller.abort();
    await this.#loop;
    await this.#shutdown("stopped");
  }

  async #run(): Promise<void> {
    const signal = this.#controller.signal;
    let failures = 0;
    while (!signal.aborted) {
      try {
        this.#set("connecting", failures > 0 ? "retrying" : "opening");
        if (!this.#opened) this.#opened = await this.#open(signal);
        await this.#opened.receiver?.start?.(signal);
        if (signal.aborted) break;
        this.#set("up");
        this.#failure = undefined;
        this.#log.info({ identity: this.#opened.identity }, "account started");
        this.#firstSettled();
        failures = 0;
        const down = await this.#watch(signal);
        if (signal.aborted) break;
        this.#log.warn({ detail: down.detail }, "receiver went down: re-opening the account");
        await this.#shutdown(`down: ${down.detail ?? "connection lost"}`);
      } catch (error) {
        if (signal.aborted) break;
        if (isChannelAccountError(error)) {
          this.#stopped = true;
          this.#failure = error.message;
          this.#set("down", error.message);
          this.#log.error({ err: error }, `account stopped: ${error.message}`);
          await this.#shutdown(error.message);
          this.#firstSettled();
          return;
        }
        const detail = error instanceof Error ? error.message : String(error);
        this.#failure = detail;
        this.#set("connecting", `start failed: ${detail}`);
        this.#log.warn({ err: error }, "account failed to start: retrying with backoff");
        this.#firstSettled();
      }
      failures += 1;
      this.#restarts += 1;
      const delay = Math.min(
        this.#options.backoffMaxMs,
        this.#options.backoffBaseMs * 2 ** Math.min(failures - 1, 30),
      );
      await sleep(delay, signal);
    }
    this.#firstSettled();
  }

  /** Opens the account: `createAccount`, else the synchronous adapter + `createReceiver`. */
  async #open(signal: AbortSignal): Promise<ChannelAccount> {
    const { plugin, config, deps, adapter } = this.#loaded;
    const opened = await openChannelAccount(
      plugin,
      config,
      { ...deps, sink: this.#sink, signal },
      adapter,
    );
    // Without createAccount the adapter was registered when the channel was loaded.
    if (plugin.createAccount) this.#runtime.addAdapter(opened.adapter, this.account);
    return opened;
  }

  /** Resolves when the receiver reports `down` (or the signal aborts). */
  #watch(signal: AbortSignal): Promise<ReceiverHealth> {
    const receiver = this.#opened?.receiver;
    return new Promise((resolve) => {
      if (!receiver?.health) {
        signal.addEventListener("abort", () => resolve(this.#health), { once: true });
        return;
      }
      const check = () => {
        const h = receiver.health?.() ?? this.#health;
        this.#onChange(this.health());
        if (h.state === "down") {
          clearInterval(timer);
          resolve(h);
        }
      };
      const timer = setInterval(check, this.#options.healthCheckMs);
      signal.addEventListener(
        "abort",
        () => {
          clearInterval(timer);
          resolve(this.#health);
        },
        { once: true },
      );
    });
  }

  async #shutdown(detail: string): Promise<void> {
    const opened = this.#opened;
    if (!opened) return;
    this.#opened = undefined;
    try {
      await opened.receiver?.stop?.();
      await opened.close();
    } catch (error) {
      this.#log.warn({ err: error }, "account did not close cleanly");
    }
    if (this.#loaded.plugin.createAccount) this.#runtime.removeAdapter(this.channel, this.account);
    if (!this.#stopped) this.#set("down", detail);
  }

  #set(state: ReceiverState, detail?: string): void {
    if (this.#health.state === state && this.#health.detail === detail) return;
    const since = this.#health.state === state ? this.#health.since : this.#clock();
    this.#health = detail === undefined ? { state, since } : { state, since, detail };
    this.#onChange(this.health());
  }
}
