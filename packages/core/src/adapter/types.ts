/**
 * The channel adapter surface core drives (seed `message-lifecycle.md`, "Adapter surface";
 * DESIGN §8). Plugins build these through `@herald/plugin-sdk/channel-message`; core never
 * knows a platform. Wire names (`retry_after`, `thread_ts`) stay inside the adapter: it converts
 * them once into these types.
 *
 * @module
 */
import type { RenderedMessageBatch, RenderedMessageUnit } from "../message/batch.ts";
import type { MessageCapabilities } from "../message/capabilities.ts";
import type { DeliveryFailure } from "../message/failure.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { MessageOrigin } from "../message/origin.ts";
import type { RateLimitRouteInput } from "../message/rateLimit.ts";
import type { MessageReceipt, MessageReceiptPart } from "../message/receipt.ts";
import type { MessageSendContext } from "./context.ts";
import type {
  EphemeralRequest,
  MessageDirectAdapter,
  MessageHistoryAdapter,
  ReactRequest,
} from "./features.ts";
import type { MessageLiveAdapter } from "./live.ts";
import type { MessageReceiveAdapter } from "./receive.ts";

export type { MessageSendContext } from "./context.ts";

/** A classified failure as the adapter reports it (core adds the timestamp). */
export type ClassifiedFailure = Omit<DeliveryFailure, "at">;

/** Outcome of checking the platform for an attempt whose outcome was unknown. */
export type ReconcileResult =
  | { status: "sent"; parts: MessageReceiptPart[] }
  | { status: "not_sent" }
  | { status: "unresolved"; reason?: string };

/** Turns a message into the batch of platform calls that delivers it. */
export type MessageRenderAdapter = {
  /**
   * Renders a message into units (text chunks, media, caption fallbacks), each within the
   * platform's limits.
   *
   * @throws when the message cannot be rendered at all (classified as `invalid_payload`).
   */
  render(
    message: ChannelMessage,
    ctx: { idempotencyKey: string; capabilities: MessageCapabilities },
  ): RenderedMessageBatch | Promise<RenderedMessageBatch>;
};

/** Platform calls for sending, editing and deleting. */
export type MessageSendAdapter = {
  /**
   * Delivers one rendered unit and returns its receipt part. Must throw (anything) on failure;
   * {@link MessageSendAdapter.classifyError} then says what kind of failure it was.
   */
  send(ctx: MessageSendContext, unit: RenderedMessageUnit): Promise<MessageReceiptPart>;
  /** Replaces the content of an existing platform message with `unit`. */
  edit?(
    ctx: MessageSendContext,
    target: MessageReceiptPart,
    unit: RenderedMessageUnit,
  ): Promise<MessageReceiptPart>;
  /** Deletes (or redacts) an existing platform message. */
  delete?(ctx: MessageSendContext, target: MessageReceiptPart): Promise<void>;
  /**
   * Adds (or, with `remove`, removes) one reaction: the one unit of a durable `reaction` intent
   * ([H23]). Must be idempotent: the platform's "already reacted" on add and "no reaction" on
   * remove are success (a replay never toggles a reaction off). May return nothing: core
   * records a part of kind `reaction` (`platformMessageId` `reaction:<unit key>`, `replyToId`
   * the reacted-to message; a returned part's `raw` is kept).
   * `ctx.unitIdempotencyKey` names the operation (Matrix txnId).
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: an adapter may return nothing (`async () => {}`)
  react?(ctx: MessageSendContext, request: ReactRequest): Promise<MessageReceiptPart | void>;
  /**
   * Sends one unit only `request.userId` sees (Slack `chat.postEphemeral`, Google Chat
   * `privateMessageViewer`). Ephemeral messages cannot be edited or looked up, so this is a
   * direct (non-durable) call. Absent: `sendEphemeral` throws `NotSupportedError`.
   */
  sendEphemeral?(ctx: MessageSendContext, request: EphemeralRequest): Promise<MessageReceiptPart>;
  /**
   * Classifies an error thrown by `send` / `edit` / `delete` into kind + dispatch evidence +
   * retry-after (ms). Unknown errors must default to `{ kind: "unknown", evidence: "maybe_sent" }`.
   */
  classifyError(error: unknown, ctx?: MessageSendContext): ClassifiedFailure;
  /**
   * Checks the platform for units of an `unknown_after_send` intent. Only `not_sent` permits a
   * replay; `unresolved` is re-checked later (or held, per `unknownSendPolicy`).
   */
  reconcileUnknownSend?(
    ctx: MessageSendContext,
    units: readonly RenderedMessageUnit[],
  ): Promise<ReconcileResult>;
  /**
   * Called once the platform has accepted a unit (seed "Adapter surface", `afterSendSuccess`):
   * the place for a channel's local post-send effects that must happen as soon as the message
   * exists — a self-echo cache (the platform may echo the message back before the intent is
   * committed), a thread-participation marker.
   *
   * Called for every unit a send or edit lands (durable intents, `durability: "disabled"` sends
   * and the fresh send after a vanished edit target), in unit order, right after the platform
   * answered and **before** the unit's receipt is saved; not for deletes, live previews or
   * native-stream calls. `receipt` holds the landed unit's part only (`receipt.parts[0]`, its
   * `index` is the unit's); `ctx.previousReceipt` has the parts that landed before it and
   * `ctx.unitIdempotencyKey` names the unit.
   *
   * A hook error (or a hook still running after `SEND_HOOK_TIMEOUT_MS` (10 s; a quarter of `delivery.leaseMs` when that is shorter)) is logged as a
   * warning and otherwise ignored: the unit is on the platform, so failing the attempt would
   * send it again. The hook therefore never loses or duplicates a message, and it is
   * at-most-once: a crash between the platform's answer and the hook skips it, and a replay of a
   * unit whose outcome was unknown (`maybe_sent` → reconciled `not_sent`) calls it for the new
   * send. Keep it quick: delivery awaits it (with the timeout as the bound).
   */
  afterSendSuccess?(ctx: MessageSendContext, receipt: MessageReceipt): Promise<void>;
  /**
   * Called after a send's receipt is committed to the store (seed "Adapter surface",
   * `afterCommit`): the intent is `sent` and its receipt is what the idempotency key resolves
   * to from now on. The place for effects that must only follow a message herald will never
   * send again — an outbound registry, a "delivered" metric, a notification to another system.
   *
   * Called with the whole committed receipt (every part, in unit order) after: a delivery
   * attempt that sent or edited every unit; a reconcile that found an `unknown_after_send`
   * intent on the platform; a live session's final committed in place (a finished native
   * stream, a preview edited into the final). For a `durability: "disabled"` send (nothing is
   * stored) it is called once every unit has landed, before the send returns. Not called for
   * delete intents, nor for a `committing` row that startup recovery commits after a crash
   * (the hook is at-most-once: a crash between the commit and the hook skips it).
   *
   * An error (or a hook still running after `SEND_HOOK_TIMEOUT_MS` (10 s; a quarter of `delivery.leaseMs` when that is shorter)) is logged as a
   * warning and ignored: the receipt stays committed and nothing is re-sent.
   */
  afterCommit?(ctx: MessageSendContext, receipt: MessageReceipt): Promise<void>;
};

/** Translates herald origin metadata to and from the platform's native metadata. */
export type MessageOriginAdapter<TNative = unknown> = {
  encode?(origin: MessageOrigin): TNative | undefined;
  decode?(raw: unknown): MessageOrigin | undefined;
};

/** A channel adapter: what core needs from a channel plugin. */
export type ChannelMessageAdapter = {
  /** Channel id, e.g. `"telegram"`; matches `ChannelMessage.channel`. */
  id: string;
  capabilities: MessageCapabilities;
  render: MessageRenderAdapter;
  send: MessageSendAdapter;
  origin?: MessageOriginAdapter;
  /** Native streams, typing indicators and preview policy (`src/adapter/live.ts`). */
  live?: MessageLiveAdapter;
  /** Inbound: normalize, classify and authorize platform events (`src/adapter/receive.ts`). */
  receive?: MessageReceiveAdapter;
  /** Opening the DM with a user ([H23]; `capabilities.directMessages`). */
  directMessages?: MessageDirectAdapter;
  /** Recent messages of a conversation or thread ([H23]; `capabilities.history`). */
  history?: MessageHistoryAdapter;
  /**
   * Chooses the rate-limit route key of a platform call: the route the platform buckets it by,
   * major parameter included (Discord `POST /channels/123/messages`, Slack `chat.update`).
   * `route` scopes, header feedback (`ctx.reportRateLimit`) and 429 pauses are keyed by it.
   * Must be pure and cheap; it is asked before every call, durable or live.
   * @defaultValue `${operation}:${unitKind}:${target.id}` (`defaultRateLimitRoute`)
   */
  rateLimitRoute?(call: RateLimitRouteInput): string | undefined;
};
