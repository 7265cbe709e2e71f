/**
 * The seed's names for things herald calls otherwise (seed `message-lifecycle.md`, "Receive
 * context", "Send context", "Compatibility guardrails"), as type aliases of herald's own types,
 * so an author arriving from the seed finds every name it uses. Each alias says which herald
 * type it is and where herald's shape differs; `docs/plugin-authoring.md` ("Seed names") has the
 * whole table.
 *
 * The seed's receive context is an object whose methods (`dedupe`, `resolve`, `record`,
 * `dispatch`, `commit`, `fail`) the channel calls in turn. In herald the receive runtime runs
 * those steps itself (DESIGN §5) and hands the bot's handler a {@link MessageReceiveContext};
 * the seed's step results are therefore the types the runtime produces at each step.
 *
 * @module
 */
import type {
  DedupeAcquireResult,
  DurableSendIntent,
  HeraldLogger,
  MessageReceiveContext,
  ReceiveOutcome,
  ReceiveSource,
  ReceiveTicket,
  Turn,
} from "@herald/core";

/**
 * Seed `MessageSendIntent` ("Compatibility guardrails": "the end state is a
 * `MessageSendIntent` store"): herald's {@link DurableSendIntent}, the durable outbound message
 * the queue stores, leases, retries and recovers.
 * @see DurableSendIntent
 */
export type MessageSendIntent = DurableSendIntent;

/**
 * Seed `MessageLifecycleLogger` (the `log` of the send and receive contexts): herald's
 * {@link HeraldLogger}, a pino-compatible structured logger (`ctx.log` of
 * `MessageSendContext` and `MessageReceiveContext`).
 * @see HeraldLogger
 */
export type MessageLifecycleLogger = HeraldLogger;

/**
 * Seed `ReceiveDedupeResult` (what `ctx.dedupe()` answers): herald's {@link DedupeAcquireResult},
 * the outcome of taking an inbound event's dedupe lease — `acquired` (this process handles it),
 * `in_flight` (another holds the lease until `leaseExpiresAt`, epoch ms) or `done` (handled
 * before: a duplicate). The receive runtime takes the lease itself; a receiver sees the result
 * as `ReceiveOutcome` `duplicate` / `busy`.
 * @see DedupeAcquireResult
 */
export type ReceiveDedupeResult = DedupeAcquireResult;

/**
 * Seed `ResolvedInboundMessage` (what `ctx.resolve()` answers after routing and authorizing):
 * herald's {@link MessageReceiveContext}, what the bot's handler gets once the message passed
 * the echo drop, dedupe and preflight (`allowBots`, mention policy, loop guard): the normalized
 * `input`, its merged `event` class, the `dedupeKey` and the `ackPolicy` in force.
 * @see MessageReceiveContext
 */
export type ResolvedInboundMessage = MessageReceiveContext;

/**
 * Seed `RecordResult` (what `ctx.record()` answers): what herald's record step establishes
 * before dispatch — the inbound record exists under `dedupeKey` (so a redelivery is a duplicate
 * and a crash is re-dispatched by recovery), and this dispatch's `attempt` / `recovered`. These
 * are the same-named fields of {@link MessageReceiveContext}.
 * @see MessageReceiveContext
 */
export type RecordResult = Pick<
  MessageReceiveContext,
  "id" | "dedupeKey" | "attempt" | "recovered"
>;

/**
 * Seed `DispatchResult` (what `ctx.dispatch()` answers): herald's {@link ReceiveOutcome}, the
 * final outcome of one delivery (`processed`, `duplicate`, `ignored`, `event`, `dropped`,
 * `busy`, `dead_lettered`, `failed`), carried by `ReceiveTicket.done`. It never rejects.
 * @see ReceiveOutcome
 */
export type DispatchResult = ReceiveOutcome;

/**
 * Seed `ReceiveAckController` (the context's `ack`): herald's {@link ReceiveTicket}. The ack is
 * decided by the `ReceiveAckPolicy`; the receiver awaits `ticket.ack` (a `ReceiveAckSignal`:
 * `accept`, `retry` with `retryAfterMs`, or `manual`) and answers the platform with it
 * (`ackToResponse` for webhooks, the watermark for polling). The handler's only ack control is
 * `MessageReceiveContext.repliesDurable()` (policy `after-durable-send`).
 * @see ReceiveTicket
 */
export type ReceiveAckController = ReceiveTicket;

/**
 * Seed `MessageRouteController` (the context's `route`): herald routes an inbound event by where
 * it came from — {@link ReceiveSource} (`channel` selects the adapter, `accountId` the bot
 * account, `ackPolicy` / `ackDeadlineMs` override the ack) — which the receiver passes as
 * `sink.receive(raw, { accountId })`. Conversation routing (to a session) is the turn's
 * (`MessageSessionController`).
 * @see ReceiveSource
 */
export type MessageRouteController = ReceiveSource;

/**
 * Seed `MessageSessionController` (the context's `session`): herald's {@link Turn}, the handle
 * `runtime.turn` gives the bot for one inbound message — its conversation's transcript (the
 * activity ledger), replies that are durable sends, and the turn's lifecycle. Plugins never
 * touch it; it is the bot side of a receive.
 * @see Turn
 */
export type MessageSessionController = Turn;
