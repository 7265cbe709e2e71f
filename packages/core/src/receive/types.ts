/**
 * Public shapes of the receive runtime (seed `message-lifecycle.md`, "Receive context").
 *
 * @module
 */

import type {
  InboundAction,
  InboundEvent,
  InboundInteraction,
  InboundReaction,
  MessageEventClass,
} from "../adapter/receive.ts";
import type { ChannelMessageAdapter } from "../adapter/types.ts";
import type { HeraldLogger } from "../logger.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { ReceiveAckPolicy } from "../message/policy.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import type { DeadLetter, DedupeKey } from "../state/types.ts";
import type { LoopGuardOptions } from "./LoopGuard.ts";
import type { InboundPolicyOverride } from "./policy.ts";
import type { InboundRetryOptions, PendingInbound } from "./retries.ts";

/** The parts of a channel adapter the receive runtime uses. */
export type ReceiveChannelAdapter = Pick<ChannelMessageAdapter, "id" | "receive" | "origin">;

/**
 * Adapters by channel id, or a function finding the one of (channel, accountId) — the account
 * the receiver delivered the event to (DESIGN §3 "Accounts").
 */
export type ReceiveAdapterLookup =
  | ReadonlyMap<string, ReceiveChannelAdapter>
  | ((channel: string, accountId?: string) => ReceiveChannelAdapter | undefined);

/** What the receive runtime needs from its host. */
export type ReceiveRuntimeDeps = {
  /** The state store: dedupe leases, the inbound record, watermarks, dead letters, receipts. */
  store: MessageStateStore;
  adapters: ReceiveAdapterLookup;
  /** @defaultValue `silentLogger` */
  logger?: HeraldLogger;
  /** Epoch milliseconds. Leases, TTLs, the loop guard and timestamps use it. @defaultValue Date.now */
  clock?: () => number;
};

/** Where one delivery came from, as the receiver (webhook, polling loop, socket) knows it. */
export type ReceiveSource = {
  /** Channel id; selects the adapter. */
  channel: string;
  /** The bot account the event was delivered to, when a gateway runs several. */
  accountId?: string;
  /** Overrides the adapter's and the runtime's ack policy for this delivery. */
  ackPolicy?: ReceiveAckPolicy;
  /** Epoch ms when the receiver got the event. @defaultValue `clock()` */
  receivedAt?: number;
  /**
   * The platform's deadline for an answer, in ms from now (Slack Events API: 3 000). If the ack
   * has not settled by then it resolves `retry` with reason `deadline` rather than letting the
   * platform time out; processing continues and the redelivery is answered by dedupe.
   * @defaultValue none (wait for the ack policy's point)
   */
  ackDeadlineMs?: number;
};

/**
 * What the receiver tells the platform, once {@link ReceiveTicket.ack} settles:
 * - `accept`: answer success (HTTP 200) / advance the polling offset past this event.
 * - `retry`: answer so the platform redelivers (HTTP 503, `Retry-After` = `retryAfterMs`) /
 *   keep the offset. Nothing durable was lost; the event is simply not ours yet.
 * - `manual`: the policy is `manual`; the receiver decides (typically from `done`).
 */
export type ReceiveAckSignal =
  | { kind: "accept" }
  | {
      kind: "retry";
      reason: "in_flight_elsewhere" | "failed" | "store_unavailable" | "deadline";
      retryAfterMs?: number;
    }
  | { kind: "manual" };

/** Why an event was dropped without dispatch. */
export type ReceiveDropReason =
  | "herald_echo"
  | "self"
  | "bot_author"
  | "mention_required"
  | "loop_guard"
  | "preflight";

/** The final outcome of one delivery. Never a rejection: errors are carried inside. */
export type ReceiveOutcome =
  | { status: "processed"; key: DedupeKey; message: ChannelMessage; event: MessageEventClass }
  | { status: "duplicate"; key: DedupeKey }
  /** `normalize` answered `ignore(reason)`: logged, counted, acked. */
  | { status: "ignored"; reason: string; detail?: string }
  /** A typed non-message event, handed to the event handler. */
  | { status: "event"; key: DedupeKey; event: InboundEvent }
  /** A reaction or button click ([H23]), handed once to its handler. */
  | { status: "interaction"; key: DedupeKey; interaction: InboundInteraction }
  | {
      status: "dropped";
      reason: ReceiveDropReason;
      detail?: string;
      key?: DedupeKey;
      message: ChannelMessage;
    }
  | { status: "busy"; key: DedupeKey; retryAfterMs: number }
  | { status: "dead_lettered"; error: Error; deadLetterId: string }
  | {
      status: "failed";
      error: Error;
      key?: DedupeKey;
      /** The platform was already answered `accept` (it will not redeliver). */
      acked: boolean;
      /** The message was recorded: {@link ReceiveRuntime.recover} dispatches it again. */
      recorded: boolean;
    };

/**
 * The answer of {@link ReceiveRuntime.receive}: two promises that never reject.
 * `ack` settles when the platform may be answered (per {@link ReceiveAckPolicy}); `done` when
 * processing settled.
 */
export type ReceiveTicket = {
  ack: Promise<ReceiveAckSignal>;
  done: Promise<ReceiveOutcome>;
};

/**
 * What the bot's handler gets for one inbound message (seed, "Receive context"): the
 * normalized input with its merged event class, the dedupe identity, an abort signal and the
 * `after-durable-send` signal.
 */
export type MessageReceiveContext = {
  /** The dedupe identity as one string: `${channel}/${accountId}/${eventId}`. */
  id: string;
  channel: string;
  accountId?: string;
  /** The normalized inbound message. */
  input: ChannelMessage;
  /**
   * The event class, merged over every event type of this message seen before (and while)
   * the handler runs.
   */
  event: MessageEventClass;
  /** The dedupe key (platform message identity) this turn holds the lease of. */
  dedupeKey: DedupeKey;
  /** The ack policy in force for this message. */
  ackPolicy: ReceiveAckPolicy;
  /** 1 for the first dispatch of this record; higher when recovery retries it. */
  attempt: number;
  /** True when dispatched by {@link ReceiveRuntime.recover} rather than a delivery. */
  recovered: boolean;
  /** Aborted when the dedupe lease is lost (another process may take the message over). */
  signal: AbortSignal;
  log: HeraldLogger;
  /**
   * Signals that the reply's send intents are durable (enqueued in the store). Under
   * `after-durable-send` the platform is answered now rather than when the handler returns.
   * Idempotent; a no-op under other policies.
   */
  repliesDurable(): void;
};

/** The bot code that processes one inbound message. Throwing releases the dedupe lease. */
export type ReceiveHandler = (ctx: MessageReceiveContext) => void | Promise<void>;

/** What an {@link ReceiveEventHandler} gets besides the event. */
export type ReceiveEventContext = {
  /** The dedupe key this event holds the lease of. */
  dedupeKey: DedupeKey;
  log: HeraldLogger;
};

/**
 * The bot code that handles typed non-message events (`member_joined`, `message_deleted`, …).
 * Throwing releases the dedupe lease so a redelivery runs it again.
 */
export type ReceiveEventHandler = (
  event: InboundEvent,
  ctx: ReceiveEventContext,
) => void | Promise<void>;

/**
 * The bot code that handles inbound reactions ([H23]). Runs once per reaction (deduped by its
 * id); throwing releases the dedupe lease so a redelivery runs it again.
 */
export type ReceiveReactionHandler = (
  reaction: InboundReaction,
  ctx: ReceiveEventContext,
) => void | Promise<void>;

/**
 * The bot code that handles button clicks ([H23]). Runs once per click (deduped by its id);
 * the platform's ack was sent by the receiver before it runs. Throwing releases the lease.
 */
export type ReceiveActionHandler = (
  action: InboundAction,
  ctx: ReceiveEventContext,
) => void | Promise<void>;

/** Options of {@link createReceiveRuntime}. */
export type ReceiveRuntimeOptions = {
  /** The bot's handler; or register it later with `onMessage`. */
  handler?: ReceiveHandler;
  /** The handler of typed non-message events; or register it later with `onEvent`. */
  eventHandler?: ReceiveEventHandler;
  /**
   * Accept messages authored by other bots (never our own: those are always dropped).
   * @defaultValue false
   */
  allowBots?: boolean;
  /**
   * In rooms (group, channel, thread) dispatch only messages that mention this bot. Direct
   * chats never need a mention.
   * @defaultValue false
   */
  requireMention?: boolean;
  /**
   * `allowBots` / `requireMention` per channel or per account; the most specific wins
   * ((channel, account) → channel → the two options above). Change later with `setPolicy`.
   * @defaultValue none: the runtime-wide values apply everywhere
   */
  policies?: readonly InboundPolicyOverride[];
  /** The per-pair loop guard for bot-authored messages, or `false` to switch it off. */
  loopGuard?: LoopGuardOptions | false;
  /**
   * Ack policy when neither the receiver nor the adapter sets one. `after-durable-send` keeps
   * the platform's own redelivery as a safety net until the reply is durable.
   * @defaultValue `{ kind: "after-durable-send" }`
   */
  ackPolicy?: ReceiveAckPolicy;
  /**
   * Length of the dedupe lease, in ms. Renewed every third of it while the handler runs; a
   * crashed process's messages are taken over once it expires (see `instanceId`).
   * @defaultValue 30_000
   */
  leaseMs?: number;
  /** How long a processed message is remembered, in ms; the store keeps ≥ 24 h. @defaultValue 86_400_000 */
  dedupeTtlMs?: number;
  /**
   * This process's lease owner id. Give every gateway process a stable, unique id (a pod or
   * host name) so that after a restart it takes back its own expired-or-not leases at once
   * instead of waiting `leaseMs`. Two live processes must never share one.
   * @defaultValue a random UUID (no takeover; leases expire after `leaseMs`)
   */
  instanceId?: string;
  /**
   * Dispatch attempts of one recorded message before {@link ReceiveRuntime.recover} moves it
   * to a dead letter.
   * @defaultValue 5
   */
  maxAttempts?: number;
  /**
   * On channels without native origin metadata (Discord, Telegram, Google Chat), how long a
   * bot-authored room message whose platform id is not (yet) in the outbound registry waits
   * before a second registry lookup, in ms: another herald bot sharing the store may not have
   * committed the receipt of its failure notice when the platform shows it to us (CASES C56).
   * Delays only such messages, once. `0` turns the second look off.
   * @defaultValue 1_000
   */
  echoSettleMs?: number;
  /**
   * Retries of inbound that failed before its handler ran (the store could not be written, the
   * lease was lost before the record…): the running runtime runs the event again with backoff
   * until it is handled ([H28] C50). See `InboundRetryOptions` for the defaults.
   */
  retry?: InboundRetryOptions;
};

/** Result of one {@link ReceiveRuntime.recover} pass. */
export type ReceiveRecoverReport = {
  /** Recorded messages dispatched again. */
  redispatched: number;
  /** Of those, processed successfully. */
  processed: number;
  /** Moved to a dead letter after `maxAttempts`. */
  deadLettered: number;
  /** Still held by a live lease of another owner (left for later). */
  held: number;
};

/** Dead letters of inbound payloads that failed to normalize. */
export type ReceiveDeadLetters = {
  /** Lists dead letters, oldest first. @defaultValue status `"new"`, limit 100 */
  list(query?: {
    channel?: string;
    status?: DeadLetter["status"];
    limit?: number;
  }): Promise<DeadLetter[]>;
  /**
   * Runs a dead letter's raw payload through `receive` again (after an adapter fix). Marked
   * `replayed` unless it fails to normalize again, in which case it stays `new`.
   * @throws {@link DeadLetterNotFoundError} when no such letter exists.
   */
  replay(id: string): Promise<ReceiveOutcome>;
  /** Marks a dead letter `discarded` (kept, but no longer listed as new). */
  discard(id: string): Promise<void>;
};

/** The receive runtime (DESIGN §5). */
export type ReceiveRuntime = {
  /**
   * Runs one raw platform event through the receive lifecycle: normalize → classify → origin
   * decode → echo/self drop → dedupe lease → preflight → record → dispatch → commit → ack.
   * Returns at once; see {@link ReceiveTicket}.
   */
  receive(raw: unknown, source: ReceiveSource): ReceiveTicket;
  /** Sets (replaces) the handler. */
  onMessage(handler: ReceiveHandler): void;
  /**
   * Sets `allowBots` / `requireMention` for one channel (`accountId` absent) or one account,
   * merged into what was set before; applies to messages preflighted from now on.
   * @throws TypeError when `channel` is empty.
   */
  setPolicy(override: InboundPolicyOverride): void;
  /** Sets (replaces) the handler of typed non-message events (none: they are acked and counted). */
  onEvent(handler: ReceiveEventHandler): void;
  /** Sets (replaces) the handler of inbound reactions (none: they are acked and counted). */
  onReaction(handler: ReceiveReactionHandler): void;
  /** Sets (replaces) the handler of button clicks (none: they are acked and counted). */
  onAction(handler: ReceiveActionHandler): void;
  /**
   * Re-dispatches recorded messages whose processing did not commit (crash, or a handler
   * failure after the platform was answered). Call at startup and then periodically.
   */
  recover(options?: {
    /**
     * Channels whose inbox to scan.
     * @defaultValue every channel of `deps.adapters` when it is a map (pass them when it is a function)
     */
    channels?: readonly string[];
  }): Promise<ReceiveRecoverReport>;
  deadLetters: ReceiveDeadLetters;
  /** Resolves when every delivery and recovery started so far has settled. */
  drain(): Promise<void>;
  /**
   * Inbound events that failed before their handler ran and wait for a retry in this process,
   * oldest first (the console and `/metrics` show them).
   */
  pendingRetries(): PendingInbound[];
  /** Stops the retries of {@link pendingRetries} (the runtime stops). */
  stopRetries(): void;
  /** The lease owner id of this runtime. */
  readonly instanceId: string;
};
