/**
 * The message runtime (seed "Core model"): one object with `send` (durable outbound),
 * `receive` (durable inbound), `live` and `state`, over one {@link MessageStateStore} and the
 * registered channel adapters.
 *
 * @module
 */

import { randomUUID } from "node:crypto";
import { type AdapterRegistration, AdapterRegistry } from "./adapter/registry.ts";
import type { ChannelMessageAdapter } from "./adapter/types.ts";
import { CallSlots } from "./delivery/CallSlots.ts";
import { DeliveryWorker, leaseOwnerId } from "./delivery/DeliveryWorker.ts";
import { DELIVERY_DEFAULTS, type DeliveryDeps, type DeliveryOptions } from "./delivery/deps.ts";
import { DeliveryEvents } from "./delivery/events.ts";
import { validMaxAge } from "./delivery/expiry.ts";
import { RateLimitScheduler } from "./delivery/RateLimitScheduler.ts";
import type { RecoveryReport } from "./delivery/recovery.ts";
import { createLiveApi, type LiveApi } from "./live/LiveApi.ts";
import { nodeTimers } from "./live/timers.ts";
import type { LiveRuntimeOptions } from "./live/types.ts";
import { type HeraldLogger, silentLogger } from "./logger.ts";
import { DEFAULT_BACKOFF } from "./message/failure.ts";
import { createReceiveRuntime } from "./receive/ReceiveRuntime.ts";
import { InboundRecoveryPasses } from "./receive/recoveryPasses.ts";
import type {
  ReceiveRecoverReport,
  ReceiveRuntime,
  ReceiveRuntimeOptions,
} from "./receive/types.ts";
import { createFeatureApi, type FeatureApi } from "./send/features.ts";
import { createSendApi, type SendApi } from "./send/SendRuntime.ts";
import type { MessageStateStore } from "./state/MessageStateStore.ts";
import { createTurnRuntime, type TurnRuntime } from "./turn/TurnRuntime.ts";
import type { TurnRuntimeOptions } from "./turn/types.ts";

/** How often unfinished inbound messages are re-dispatched after `start()`, in ms. */
const INBOUND_RECOVERY_INTERVAL_MS = 30_000;

/** Options of {@link createMessageRuntime}. */
export type MessageRuntimeOptions = {
  store: MessageStateStore;
  /**
   * Channel adapters keyed by (channel, accountId): a bare adapter serves its channel's accounts
   * that have none of their own; `{ accountId, adapter }` binds one to one account (one bot).
   * More can be added later with `runtime.addAdapter` (async per-account factories).
   */
  adapters: readonly AdapterRegistration[];
  /** @defaultValue a silent logger */
  logger?: HeraldLogger;
  /**
   * Applied to every failure message an adapter classifies before it is stored or logged
   * (the gateway passes its secret reader's `redact`: every secret it read, in every form).
   * @defaultValue none (adapters redact their own secrets)
   */
  redact?: (text: string) => string;
  /** Epoch-ms clock. @defaultValue Date.now */
  clock?: () => number;
  /** Random source in [0, 1) for jitter. @defaultValue Math.random */
  random?: () => number;
  /** Delivery worker and retry tunables. */
  delivery?: DeliveryOptions;
  /** Live sessions: timers (inject manual ones in tests) and recovery interval. */
  live?: LiveRuntimeOptions;
  /** Receive: handler, `allowBots`, mention policy, loop guard, ack policy, dedupe TTL. */
  receive?: ReceiveRuntimeOptions;
  /** Turns: watchdog TTL and the stale-turn sweep (`src/turn/`). */
  turns?: TurnRuntimeOptions;
};

/**
 * The runtime: send API + lifecycle of the delivery worker; turns (`turn`, `onTurn`,
 * `activity`, `onActivity`, `subagent`, `ledger`) from `src/turn/TurnRuntime.ts`.
 */
export interface MessageRuntime extends SendApi, FeatureApi, TurnRuntime {
  readonly store: MessageStateStore;
  readonly worker: DeliveryWorker;
  /**
   * Opens a live message: preview / block / progress / native stream, then a durable final
   * (`src/live/LiveSession.ts`). @throws UnknownChannelError · NotImplementedError (mode the
   * channel cannot do) · LiveSessionBusyError (the key is streaming elsewhere)
   */
  live: LiveApi["open"];
  /** Shows the channel's typing indicator until `stop()` or its TTL. @throws NotImplementedError */
  typing: LiveApi["typing"];
  /** One live recovery pass now (also runs at `start()` and periodically). */
  recoverLive: LiveApi["recover"];
  /**
   * Runs one inbound platform event through the receive lifecycle (normalize → … → ack);
   * see `src/receive/`. Returns `{ ack, done }`: answer the platform when `ack` resolves.
   */
  receive: ReceiveRuntime["receive"];
  /** Registers the bot's inbound handler. */
  onMessage: ReceiveRuntime["onMessage"];
  /**
   * Sets `allowBots` / `requireMention` for one channel or one account of it (most specific
   * wins; see `receive.policies`).
   */
  setInboundPolicy: ReceiveRuntime["setPolicy"];
  /** Sets the handler of typed non-message events (`member_joined`, `message_deleted`, …). */
  onEvent: ReceiveRuntime["onEvent"];
  /** Sets the handler of inbound reactions ([H23]): once per reaction, deduped like messages. */
  onReaction: ReceiveRuntime["onReaction"];
  /** Sets the handler of button clicks ([H23]): once per click, deduped like messages. */
  onAction: ReceiveRuntime["onAction"];
  /** Inbound payloads that failed to normalize: list, replay, discard. */
  deadLetters: ReceiveRuntime["deadLetters"];
  /** Re-dispatches inbound messages recorded but not finished (runs at `start()` too). */
  recoverInbound: ReceiveRuntime["recover"];
  /**
   * Inbound events that failed before their handler ran (the store could not be written…) and
   * wait for this process to retry them with backoff ([H28] C50), oldest first.
   */
  pendingInbound: ReceiveRuntime["pendingRetries"];
  /**
   * Looks up the adapter of (channel, accountId) — that account's own, else the channel's
   * account-less one, else (no account named) the channel's only one.
   */
  adapter(channel: string, accountId?: string): ChannelMessageAdapter | undefined;
  /**
   * Registers an adapter for its channel and `accountId` after creation (an account whose client
   * was built asynchronously); replaces an earlier one of the same pair. Intents, live sessions
   * and inbound events of that account use it from then on. After `start()`, an inbound
   * recovery pass over its channel starts at once (the `start()` pass did not see it).
   */
  addAdapter(adapter: ChannelMessageAdapter, accountId?: string): void;
  /** Unregisters the adapter of (channel, accountId). @returns whether one was registered */
  removeAdapter(channel: string, accountId?: string): boolean;
  /**
   * Starts delivery: startup recovery within its budget, then the worker loop; then live
   * recovery (sessions of a crashed process), repeated every `live.recoveryIntervalMs`; then
   * starts inbound recovery (messages recorded but not finished) in the background — `start()`
   * does not wait for it (see {@link MessageRuntime.startupRecovery}) — repeated every 30 s, and
   * once more for each channel whose adapter `addAdapter` registers later.
   */
  start(): Promise<RecoveryReport>;
  /**
   * The inbound recovery passes of startup — the one `start()` began, and the one of each
   * adapter registered since (`addAdapter`): resolves once none is queued or running, with the
   * sum of their reports (`undefined` before `start()`, or when a pass failed: the error is
   * logged).
   */
  startupRecovery(): Promise<ReceiveRecoverReport | undefined>;
  /** Whether a startup inbound recovery pass (see {@link MessageRuntime.startupRecovery}) is queued or running. */
  isRecovering(): boolean;
  /** Graceful shutdown: finish in-flight sends (up to `drainMs`), release leases. */
  stop(drainMs?: number): Promise<void>;
}

/**
 * Creates the message runtime. Call `start()` before sending.
 *
 * @example
 * const runtime = createMessageRuntime({ store: new SqliteStateStore({ path: "state.db" }), adapters: [qa] });
 * await runtime.start();
 * const receipt = await runtime.send(message);
 */
export function createMessageRuntime(options: MessageRuntimeOptions): MessageRuntime {
  const adapters = new AdapterRegistry(
    options.adapters,
    options.redact ? { redact: options.redact } : {},
  );
  const delivery = options.delivery ?? {};
  const workerId = delivery.workerId ?? randomUUID().slice(0, 8);
  const clock = options.clock ?? Date.now;
  const deps: DeliveryDeps = {
    store: options.store,
    adapterFor: (channel, accountId) => adapters.find(channel, accountId),
    requireAdapter: (channel, accountId) => adapters.get(channel, accountId),
    adapters: () => adapters.list(),
    scheduler: new RateLimitScheduler({ clock, shared: options.store.sharedLimits }),
    events: new DeliveryEvents(),
    slots: new CallSlots(delivery.concurrency ?? DELIVERY_DEFAULTS.concurrency),
    clock,
    random: options.random ?? Math.random,
    logger: options.logger ?? silentLogger,
    workerId,
    owner: leaseOwnerId(workerId),
    options: {
      leaseMs: delivery.leaseMs ?? DELIVERY_DEFAULTS.leaseMs,
      concurrency: delivery.concurrency ?? DELIVERY_DEFAULTS.concurrency,
      pollIntervalMs: delivery.pollIntervalMs ?? DELIVERY_DEFAULTS.pollIntervalMs,
      maxInMemoryWaitMs: delivery.maxInMemoryWaitMs ?? DELIVERY_DEFAULTS.maxInMemoryWaitMs,
      maxReconcileChecks: delivery.maxReconcileChecks ?? DELIVERY_DEFAULTS.maxReconcileChecks,
      maxScheduleAheadMs: delivery.maxScheduleAheadMs ?? DELIVERY_DEFAULTS.maxScheduleAheadMs,
      recoveryBudgetMs: delivery.recoveryBudgetMs ?? DELIVERY_DEFAULTS.recoveryBudgetMs,
      recoveryRowsPerPass: delivery.recoveryRowsPerPass ?? DELIVERY_DEFAULTS.recoveryRowsPerPass,
      maxAgeMs: validMaxAge(delivery.maxAgeMs, "delivery.maxAgeMs"),
      channelMaxAgeMs: Object.fromEntries(
        Object.entries(delivery.channelMaxAgeMs ?? {}).map(([channel, ms]) => [
          channel,
          validMaxAge(ms, `delivery.channelMaxAgeMs.${channel}`) as number,
        ]),
      ),
      backoff: { ...DEFAULT_BACKOFF, ...delivery.backoff },
      ...(options.redact ? { redact: options.redact } : {}),
    },
  };
  const worker = new DeliveryWorker(deps);
  const send = createSendApi(deps, worker);
  const live = createLiveApi(deps, worker, options.live);
  const turns = createTurnRuntime(
    {
      store: options.store,
      clock: deps.clock,
      logger: deps.logger,
      timers: options.live?.timers ?? nodeTimers,
      send: send.send,
    },
    options.turns,
  );
  const inbound = createReceiveRuntime(
    {
      store: options.store,
      adapters: (channel, accountId) => adapters.find(channel, accountId),
      logger: deps.logger,
      clock: deps.clock,
    },
    { instanceId: workerId, ...options.receive },
  );
  const inboundPasses = new InboundRecoveryPasses({
    recover: (channels) => inbound.recover({ channels }),
    channels: () => adapters.channels(),
    log: deps.logger,
    intervalMs: INBOUND_RECOVERY_INTERVAL_MS,
  });
  return {
    ...send,
    ...createFeatureApi(deps),
    ...turns,
    store: options.store,
    worker,
    live: live.open,
    typing: live.typing,
    recoverLive: live.recover,
    receive: (raw, source) => inbound.receive(raw, source),
    onMessage: (handler) => inbound.onMessage(handler),
    setInboundPolicy: (override) => inbound.setPolicy(override),
    onEvent: (handler) => inbound.onEvent(handler),
    onReaction: (handler) => inbound.onReaction(handler),
    onAction: (handler) => inbound.onAction(handler),
    deadLetters: inbound.deadLetters,
    recoverInbound: (opts) => inbound.recover({ channels: adapters.channels(), ...opts }),
    pendingInbound: () => inbound.pendingRetries(),
    adapter: (channel, accountId) => adapters.find(channel, accountId),
    addAdapter: (adapter, accountId) => {
      adapters.add(adapter, accountId);
      inboundPasses.channelAdded(adapter.id);
      // Its intents parked while it was missing (a restart: the worker starts first) go now.
      worker.adapterAdded(adapter.id).catch((err) => {
        deps.logger.warn({ err, channel: adapter.id }, "could not reschedule parked intents");
      });
    },
    removeAdapter: (channel, accountId) => adapters.remove(channel, accountId),
    async start() {
      const report = await worker.start();
      await live.recover();
      live.startBackground();
      // Inbound messages recorded but not finished (a crash after the platform was answered),
      // in the background: handlers re-run there may wait for their replies, and nothing else
      // (receivers, the HTTP server) waits for them. Adapters registered later get their own
      // pass (`addAdapter`).
      inboundPasses.start();
      return report;
    },
    startupRecovery: () => inboundPasses.settled(),
    isRecovering: () => inboundPasses.recovering,
    async stop(drainMs) {
      live.stopBackground();
      inboundPasses.stop();
      inbound.stopRetries();
      await inbound.drain();
      await worker.stop(drainMs);
    },
  };
}
