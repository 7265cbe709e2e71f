/**
 * `createGateway` (DESIGN §10): hosts the channel plugins of one process — the message runtime
 * (delivery worker with startup recovery, receive, live), each channel's receiver, and the HTTP
 * server (`/webhooks/:channel/:account`, `/healthz`, `/metrics`, the web console at `/console`
 * when `console` is given).
 *
 * @module
 */
import {
  ActivityLogForwarder,
  type ActivityLogOptions,
  createMessageRuntime,
  createReceiverSinkFor,
  type DeliveryOptions,
  type HeraldLogger,
  type InboundEvent,
  type InboundEventType,
  type MessageReceipt,
  type MessageRuntime,
  type MessageStateStore,
  type ReceiveOutcome,
  type ReceiveRuntimeOptions,
  SecretRedactor,
  silentLogger,
} from "@herald/core";
import type { ChannelReceiver, ChannelReceiverSink } from "@herald/plugin-sdk/channel-message";
import {
  type AccountHealth,
  AccountSupervisor,
  type SupervisionOptions,
} from "./accounts/AccountSupervisor.ts";
import { type BotTurn, type BotTurnOptions, createBotTurn } from "./bot/BotTurn.ts";
import { type FailureNoticeOptions, withFailureNotice } from "./bot/failureNotice.ts";
import {
  type BotActionHandler,
  type BotReactionHandler,
  botAction,
  botReaction,
  interactionRoot,
  type ReplyContent,
  sendDirect,
} from "./bot/features.ts";
import { ConfigError } from "./config/errors.ts";
import { AttemptLog } from "./console/attempts.ts";
import { type ConsoleApp, createConsoleApp } from "./console/console.ts";
import {
  type ConsoleOptions,
  consoleTokenProblem,
  DEFAULT_CONSOLE_SESSION_TTL_MS,
} from "./console/deps.ts";
import type { HttpListener } from "./http/listener.ts";
import { GatewayMetrics } from "./http/metrics.ts";
import type { GatewayPhase } from "./http/probes.ts";
import { CONSOLE_PATH, type HttpServerHandle, startHttpServer } from "./http/server.ts";
import type { LoadedChannel } from "./plugins/loadPlugins.ts";

/** The bot: called once per inbound message. Throwing lets the message be redelivered. */
export type BotHandler = (turn: BotTurn) => void | Promise<void>;

/**
 * Handles one typed non-message event (`member_joined`, `message_deleted`, …), once per event
 * (deduped). Throwing lets the event be redelivered.
 */
export type BotEventHandler<T extends InboundEventType = InboundEventType> = (
  event: InboundEvent & { type: T },
) => void | Promise<void>;

/** Options of {@link createGateway}. */
export type GatewayOptions = {
  store: MessageStateStore;
  /** Loaded channel accounts (see `loadPlugins`). */
  channels: LoadedChannel[];
  handler?: BotHandler;
  /**
   * HTTP server address and the default webhook body limit (bytes; routes whose plugin declares
   * none); `false` for none. `listener`: a socket bound earlier with `bindHttpListener` (it
   * answers `/livez` while the rest starts up, see `http/listener.ts`); `start()` serves on it
   * instead of binding `host:port`, and `stop()` closes it.
   * @defaultValue `{ host: "127.0.0.1", port: 8787 }` (1 MiB limit)
   */
  http?:
    | {
        host: string;
        port: number;
        maxBodyBytes?: number | undefined;
        listener?: HttpListener | undefined;
      }
    | false;
  logger?: HeraldLogger;
  /**
   * Redacts secrets from every classified failure before it is stored (`herald()` passes its
   * secret reader's). @defaultValue none
   */
  redact?: (text: string) => string;
  delivery?: DeliveryOptions;
  receive?: Omit<ReceiveRuntimeOptions, "handler">;
  /** Backoff of account (re)starts and the receiver health check interval. */
  supervision?: SupervisionOptions;
  /**
   * Show the typing indicator while the handler works, on channels that have one, until the
   * first reply or the end of the turn (`turn.typing()` shows it on demand). @defaultValue false
   */
  typing?: BotTurnOptions["typing"];
  /**
   * The gateway-failure notice posted where a message came from when its turn fails (the
   * handler throws, or runs longer than `timeoutMs`): tagged with herald's `gateway_failure`
   * origin so no herald bot sharing the store takes it as a prompt (CASES C56). Applies to every
   * channel account; an account's own `failureNotice` (from the config) wins, and `false` there
   * turns it off. @defaultValue none (off)
   */
  failureNotice?: FailureNoticeOptions;
  /**
   * The threaded activity log for channels with thread replies and edits; `false` turns it off.
   * @defaultValue `{}` (on, default options)
   */
  activityLog?: ActivityLogOptions | false;
  /**
   * The web console at `/console` (queue inspector, conversation view, accounts), signed in
   * with `token`. Served only on a loopback `http.host` unless `allowRemote`.
   * @defaultValue none (off)
   */
  console?: ConsoleOptions;
};

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|\[::1\]|localhost)$/;

/** The gateway's redaction, plus the console token itself (also when the caller gave none). */
function consoleRedaction(
  token: string,
  redact: ((text: string) => string) | undefined,
): (text: string) => string {
  const own = new SecretRedactor();
  own.add(token);
  return (text) => own.redact(redact ? redact(text) : text);
}

/**
 * Refuses a console token shorter than 16 characters (an empty one would let
 * an empty sign-in through) or holding whitespace (no sign-in could match it).
 * @throws ConfigError at `console.token`.
 */
function assertConsoleToken(options: ConsoleOptions): void {
  const problem = consoleTokenProblem(options.token);
  if (problem === undefined) return;
  throw new ConfigError("createGateway()", [
    {
      path: "console.token",
      message: problem,
      fix: "use a random token, e.g. the output of `openssl rand -hex 24` (no newline)",
    },
  ]);
}

/**
 * Refuses a console on a non-loopback address unless the config allows it.
 * @throws ConfigError at `console.allowRemote`.
 */
function assertConsoleHost(host: string, options: ConsoleOptions): void {
  if (LOOPBACK.test(host) || options.allowRemote) return;
  throw new ConfigError("config", [
    {
      path: "console.allowRemote",
      message: `the web console would be reachable on ${host}, not only from this machine`,
      fix: 'keep "http": { "host": "127.0.0.1" }, or set "console": { "allowRemote": true } behind your own TLS and access control',
    },
  ]);
}

/** A running (or startable) gateway. */
export type Gateway = {
  readonly runtime: MessageRuntime;
  readonly metrics: GatewayMetrics;
  /** The HTTP server's base URL once started (`http://127.0.0.1:8787`). */
  readonly url: string | undefined;
  /** Each account's health: receiver state, since, detail, restarts (also in `/healthz`). */
  accounts(): AccountHealth[];
  /** Registers the bot handler (replaces an earlier one). */
  onMessage(handler: BotHandler): void;
  /**
   * Subscribes to a typed non-message event (`member_joined`, `member_left`,
   * `message_deleted`, `message_edited`, `reaction_added`, `reaction_removed`). Several handlers
   * per type run in order. @returns a function removing the handler.
   */
  onEvent<T extends InboundEventType>(type: T, handler: BotEventHandler<T>): () => void;
  /**
   * Subscribes to button clicks ([H23]): each click runs every handler once (deduped; the
   * platform's ack was sent in time by the receiver). `action.reply(…)` answers durably.
   * @returns a function removing the handler.
   */
  onAction(handler: BotActionHandler): () => void;
  /** Subscribes to reactions added or removed ([H23]), once per reaction. @returns a remover. */
  onReaction(handler: BotReactionHandler): () => void;
  /**
   * Sends into the DM with a user ([H23]): opens (or finds) the DM, then sends durably (pass
   * `idempotencyKey` to make a rerun send nothing new).
   * @throws NotSupportedError / DirectMessageUnavailableError (Telegram: user never started the bot).
   */
  dm(
    to: { channel: string; accountId?: string; userId: string },
    content: string | ReplyContent,
    options?: { idempotencyKey?: string },
  ): Promise<MessageReceipt>;
  /**
   * Opens the HTTP server first (`/livez` answers at once; webhooks get 503 until their
   * receiver runs), starts delivery (its recovery within `recoveryBudgetMs`), then opens every
   * account and starts its receiver concurrently (resolving once each first attempt settled:
   * up, failed and retrying, or stopped for rejected credentials). Inbound recovery runs in the
   * background meanwhile (one pass at start, one per account once its adapter is registered):
   * readiness reports `recovering` until those passes ended. One broken account
   * never fails `start()`: see {@link Gateway.accounts}.
   */
  start(): Promise<void>;
  /** Where the gateway is: `starting`, `recovering` (serving), `ready`, `stopping`. */
  phase(): GatewayPhase;
  /** Stops accepting, finishes in-flight sends (up to `drainMs`), releases leases. */
  stop(drainMs?: number): Promise<void>;
  /** Stops gracefully on SIGINT / SIGTERM. @returns a function removing the handlers. */
  handleSignals(): () => void;
};

/** The fields of `policy` that are set (exact optional types: no `undefined` values). */
function definedOf(policy: NonNullable<LoadedChannel["receive"]>) {
  return {
    ...(policy.allowBots === undefined ? {} : { allowBots: policy.allowBots }),
    ...(policy.requireMention === undefined ? {} : { requireMention: policy.requireMention }),
  };
}

/** Creates a gateway over a store and loaded channels. Call `start()`. */
export function createGateway(options: GatewayOptions): Gateway {
  const logger = options.logger ?? silentLogger;
  let handler = options.handler;
  const eventHandlers = new Map<InboundEventType, Set<BotEventHandler>>();
  const actionHandlers = new Set<BotActionHandler>();
  const reactionHandlers = new Set<BotReactionHandler>();
  const metrics = new GatewayMetrics(options.store, logger);
  /** The failure notice of one channel account: its own setting, else the gateway's. */
  const failureNoticeOf = (channel: string, accountId: string | undefined) => {
    const own = options.channels.find(
      (c) => c.plugin.id === channel && c.account === (accountId ?? c.account),
    )?.failureNotice;
    if (own === false) return undefined;
    return own ?? options.failureNotice;
  };
  const runtime: MessageRuntime = createMessageRuntime({
    store: options.store,
    // One adapter per (channel, account): two bots of one platform never share a client. An
    // account opened with `createAccount` registers its adapter once it is open.
    adapters: options.channels
      .filter((c) => !c.plugin.createAccount)
      .map((c) => ({ accountId: c.account, adapter: c.adapter })),
    logger,
    ...(options.redact ? { redact: options.redact } : {}),
    ...(options.delivery ? { delivery: options.delivery } : {}),
    live: {
      onReconcileError: (e) =>
        metrics.reconcileErrors.inc({ channel: e.channel, account: e.accountId ?? "" }),
    },
    receive: {
      ...options.receive,
      // Per account, from the config (most specific wins over the channel and runtime-wide ones).
      policies: [
        ...(options.receive?.policies ?? []),
        ...options.channels.flatMap((c) =>
          c.receive
            ? [{ channel: c.plugin.id, accountId: c.account, ...definedOf(c.receive) }]
            : [],
        ),
      ],
      handler: async (ctx) => {
        const bot = handler;
        if (!bot) throw new Error("no bot handler registered: call gateway.onMessage(handler)");
        await withFailureNotice(
          runtime,
          ctx.input,
          failureNoticeOf(ctx.input.channel, ctx.input.accountId),
          logger,
          () =>
            runtime.turn({ input: ctx.input, signal: ctx.signal }, (turn) =>
              bot(
                createBotTurn(
                  runtime,
                  ctx,
                  turn,
                  options.typing === undefined ? {} : { typing: options.typing },
                ),
              ),
            ),
        );
      },
      eventHandler: async (event) => {
        for (const fn of eventHandlers.get(event.type) ?? []) await fn(event);
      },
    },
  });
  // Clicks and reactions: deduped by the receive runtime, each handler once per event.
  // Each runs in a turn of its own, like a message's handler (ledger, turn id on its sends).
  runtime.onAction(async (action) => {
    if (actionHandlers.size === 0) return;
    const view = botAction(runtime, action);
    await runtime.turn(interactionRoot(action), async () => {
      for (const fn of actionHandlers) await fn(view);
    });
  });
  runtime.onReaction(async (reaction) => {
    if (reactionHandlers.size === 0) return;
    const view = botReaction(reaction);
    await runtime.turn(interactionRoot(reaction), async () => {
      for (const fn of reactionHandlers) await fn(view);
    });
  });
  const activityLog =
    options.activityLog === false
      ? undefined
      : new ActivityLogForwarder(runtime, options.activityLog ?? {});
  runtime.worker.on((event) => {
    if (event.type === "receipt_conflict") {
      const i = event.intent;
      metrics.receiptConflicts.inc({ channel: i.channel, account: i.accountId ?? "" });
    }
    if (event.type !== "settled") return;
    const i = event.intent;
    if (i.status === "sent" || i.status === "failed") {
      metrics.sendLatency.observe(
        { channel: i.channel, status: i.status },
        (i.updatedAt - i.createdAt) / 1000,
      );
    }
    if (i.failure && i.status !== "sent")
      metrics.failures.inc({ channel: i.channel, kind: i.failure.kind });
    if (i.status === "expired")
      metrics.expired.inc({ channel: i.channel, account: i.accountId ?? "" });
  });
  const countOutcome = (channel: string, outcome: ReceiveOutcome) => {
    metrics.inbound.inc({ channel, outcome: outcome.status });
    if (outcome.status === "duplicate") metrics.dedupeHits.inc({ channel });
    if (outcome.status === "ignored") metrics.ignored.inc({ channel, reason: outcome.reason });
  };

  const receivers = new Map<string, ChannelReceiver>();
  const supervisors = options.channels.map((c) => {
    const channel = c.plugin.id;
    const sink: ChannelReceiverSink = createReceiverSinkFor({
      receive: (raw, source) => runtime.receive(raw, source),
      store: options.store,
      channel,
      accountId: c.account,
      logger: c.deps.logger,
      onOutcome: (outcome) => countOutcome(channel, outcome),
      onWatermarkRestart: (r) =>
        metrics.watermarkRestarts.inc({ channel, account: r.key.accountId ?? "" }),
    });
    const supervisor = new AccountSupervisor({
      loaded: c,
      sink,
      runtime,
      logger,
      clock: c.deps.clock,
      ...(options.supervision ? { supervision: options.supervision } : {}),
      onChange: () => {
        const r = supervisor.receiver;
        if (r) receivers.set(`${channel}/${c.account}`, r);
        else receivers.delete(`${channel}/${c.account}`);
      },
    });
    return supervisor;
  });
  const accountHealth = () => supervisors.map((s) => s.health());
  metrics.watchAccounts(accountHealth);
  metrics.watchPendingInbound(() => runtime.pendingInbound());

  let consoleApp: ConsoleApp | undefined;
  if (options.console && options.http !== false) {
    assertConsoleToken(options.console);
    assertConsoleHost(options.http?.host ?? "127.0.0.1", options.console);
    consoleApp = createConsoleApp({
      token: options.console.token,
      sessionTtlMs: options.console.sessionTtlMs ?? DEFAULT_CONSOLE_SESSION_TTL_MS,
      base: CONSOLE_PATH,
      store: options.store,
      runtime,
      accounts: accountHealth,
      redact: consoleRedaction(options.console.token, options.redact),
      logger,
      attempts: new AttemptLog(),
      clock: () => Date.now(),
    });
  }

  let http: HttpServerHandle | undefined;
  let phase: GatewayPhase = "starting";
  /** Between `runtime.start()` and the end of every account's first start attempt. */
  let opening = false;
  let stopping: Promise<void> | undefined;
  const gateway: Gateway = {
    runtime,
    metrics,
    get url() {
      return http?.url;
    },
    onMessage(h) {
      handler = h;
    },
    onAction(fn) {
      actionHandlers.add(fn);
      return () => actionHandlers.delete(fn);
    },
    onReaction(fn) {
      reactionHandlers.add(fn);
      return () => reactionHandlers.delete(fn);
    },
    dm: (to, content, o) => sendDirect(runtime, to, content, o),
    onEvent(type, fn) {
      const set = eventHandlers.get(type) ?? new Set<BotEventHandler>();
      eventHandlers.set(type, set);
      const added = fn as BotEventHandler;
      set.add(added);
      return () => set.delete(added);
    },
    accounts: accountHealth,
    phase: () => {
      if (phase === "recovering" && !opening && !runtime.isRecovering()) phase = "ready";
      return phase;
    },
    async start() {
      phase = "starting";
      if (options.http !== false) {
        const { maxBodyBytes, listener, ...address } = options.http ?? {
          host: "127.0.0.1",
          port: 8787,
        };
        http = await startHttpServer({
          ...address,
          ...(listener ? { listener } : {}),
          store: options.store,
          metrics,
          receivers,
          accounts: accountHealth,
          phase: () => gateway.phase(),
          bodyLimitOf: (channel, account) =>
            options.channels.find((c) => c.plugin.id === channel && c.account === account)
              ?.maxBodyBytes,
          ...(maxBodyBytes === undefined ? {} : { defaultBodyLimitBytes: maxBodyBytes }),
          ...(consoleApp ? { console: consoleApp } : {}),
          logger,
        });
        logger.info({ url: http.url }, "http server listening");
      }
      // Inbound recovery runs in the background (readiness: `recovering`), never before serving.
      try {
        await runtime.start();
      } catch (error) {
        await http?.close();
        http = undefined;
        throw error;
      }
      phase = "recovering";
      // Every account opens and starts concurrently; a broken one never holds up the others.
      // Each account's adapter, registered once it opened, gets its own recovery pass: readiness
      // stays `recovering` until those passes ended too.
      opening = true;
      for (const s of supervisors) s.start();
      await Promise.all(supervisors.map((s) => s.firstAttempt));
      opening = false;
      void runtime.startupRecovery().then(() => gateway.phase());
      // Warn only for accounts that really failed: a receiver still connecting after a good
      // start (its first poll in flight) is healthy.
      for (const [i, h] of accountHealth().entries()) {
        if (h.stopped || supervisors[i]?.failure !== undefined)
          logger.warn(
            { channel: h.channel, account: h.account, state: h.state, detail: h.detail },
            h.stopped ? "account stopped" : "account not up yet: retrying in the background",
          );
      }
    },
    stop(drainMs) {
      phase = "stopping";
      stopping ??= (async () => {
        await http?.close();
        consoleApp?.close();
        await Promise.all(supervisors.map((s) => s.stop()));
        await activityLog?.close();
        await runtime.stop(drainMs);
      })();
      return stopping;
    },
    handleSignals() {
      const onSignal = (signal: NodeJS.Signals) => {
        logger.info({ signal }, "shutting down: finishing in-flight sends");
        void gateway.stop().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
      return () => {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
      };
    },
  };
  return gateway;
}
