/**
 * `runtime.send` / `runtime.enqueue` / `withSendContext` (seed "Send context"; DESIGN §4):
 * begin the durable intent (same idempotency key → same intent and receipt), deliver it inline
 * when it is first in its ordering key (else the worker does, in order), and return the receipt.
 *
 * @module
 */

import type { ChannelMessageAdapter } from "../adapter/types.ts";
import { replyingInTurn, typingOpenFor } from "../context/replies.ts";
import { currentTurnId, trackInTurn } from "../context/scope.ts";
import type { SendingAttempt } from "../delivery/attempt.ts";
import type { DeliveryWorker } from "../delivery/DeliveryWorker.ts";
import type { DeliveryDeps } from "../delivery/deps.ts";
import {
  DeliveryCancelledError,
  DeliveryExpiredError,
  DeliveryFailedError,
  DeliveryPendingError,
} from "../delivery/errors.ts";
import { maxAgeFor } from "../delivery/expiry.ts";
import { beginFolded, type FoldOutcome } from "../delivery/fold.ts";
import { within } from "../delivery/within.ts";
import { failpoint } from "../failpoint.ts";
import type { RenderedMessageBatch } from "../message/batch.ts";
import { NotSupportedError } from "../message/featureErrors.ts";
import { assertAttachmentSizes } from "../message/files.ts";
import type { DurableSendIntent, IntentOperation } from "../message/intent.ts";
import { defaultIdempotencyKey } from "../message/keys.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { MessageDurabilityPolicy } from "../message/policy.ts";
import type { MessageReceipt } from "../message/receipt.ts";
import { StoreUnavailableError } from "../state/errors.ts";
import { assertSameRequest } from "./conflict.ts";
import { directSend } from "./directSend.ts";
import { defaultEditKey, sameEdit } from "./editKey.ts";
import type { ReactionRequest } from "./features.ts";

/** Options of one send. */
export type SendOptions = {
  /**
   * Names one operation (DESIGN §3 "Keys"). Same key and same request → same intent: a repeated
   * call returns the first one's receipt instead of sending again. The same key for another
   * operation (an edit after a send) or another payload (other text, target, account) throws
   * `IdempotencyConflictError` and sends nothing. Use a key derived from what caused the
   * operation (say `reply:<inbound id>`), or omit it.
   * @defaultValue namespaced by operation, channel and account (module doc of `message/keys.ts`):
   * `send:<channel>:<account>:<message.id>`, `edit:<channel>:<account>:<where>:<n>` (the `n`-th
   * edit of that message; a retry of the latest edit reuses its key),
   * `delete:<channel>:<account>:<where>`, where `<where>` is `<conversation>:<thread>:<message id>`
   */
  idempotencyKey?: string;
  /**
   * What a reused `idempotencyKey` must match to count as the same operation.
   * `"request"` (default): operation, channel, account, target, body, attachments and relation.
   * `"slot"`: everything but the content (body and attachments) — the key names a slot such as
   * "reply #1 to inbound X", and a handler run again after a crash, whose model now writes other
   * text, gets the receipt of the reply already decided instead of a second, different message.
   * A different operation, channel, account, target or relation still throws
   * `IdempotencyConflictError`.
   * @defaultValue "request"
   */
  keyMatch?: "request" | "slot";
  /** @defaultValue "required" — fail closed (no platform I/O) if the intent cannot be written. */
  durability?: MessageDurabilityPolicy;
  /** Root turn id to stamp on the intent (turn scopes set it automatically). */
  turnId?: string;
  /**
   * Not sent once older than this (ms from when the intent was written): an attempt that
   * finds it older ends it `expired` and `send` throws `DeliveryExpiredError` — a reply that
   * waited behind an outage or a rate limit is not posted out of context ([H25], C55). Part
   * of it already visible (a live preview, a landed part of a batch) is finished instead
   * (`docs/concepts/sending.md`, "maxAgeMs").
   * @defaultValue the channel's `delivery.channelMaxAgeMs`, else `delivery.maxAgeMs`, else none
   * @throws RangeError (from `send`) when not a positive number
   */
  maxAgeMs?: number;
  /**
   * How long `send` waits for the receipt before throwing `DeliveryPendingError` (the message
   * stays queued and will still be delivered). @defaultValue 30_000
   */
  waitMs?: number;
  /** Pre-rendered batch (from `ctx.render()`); rendered by the adapter when absent. */
  batch?: RenderedMessageBatch;
  /**
   * Called once the intent is durably written, before any platform I/O (receivers use it to
   * acknowledge an inbound event under the `after-durable-send` ack policy).
   */
  onDurable?: (intent: DurableSendIntent) => void;
};

/** The send half of the message runtime. */
export type SendApi = {
  /**
   * Sends a message durably and returns its receipt (every platform message id + primary id).
   *
   * @throws StoreUnavailableError under `durability: "required"` when the intent cannot be written (nothing is sent).
   * @throws DeliveryFailedError when the failure is terminal (auth, permission, invalid payload, attempts exhausted).
   * @throws DeliveryPendingError when `waitMs` passed first (still queued; it will be delivered).
   * @throws DeliveryCancelledError when an operator cancelled it.
   * @throws UnknownChannelError when no adapter serves `message.channel`.
   * @throws UnknownAccountError when none serves `message.accountId` of that channel.
   */
  send(message: ChannelMessage, options?: SendOptions): Promise<MessageReceipt>;
  /** Edits a delivered message (all its parts) to `message`'s content, durably. */
  edit(
    receipt: MessageReceipt,
    message: ChannelMessage,
    options?: SendOptions,
  ): Promise<MessageReceipt>;
  /** Deletes (or redacts) a delivered message, durably. */
  delete(receipt: MessageReceipt, message: ChannelMessage, options?: SendOptions): Promise<void>;
  /**
   * Adds (or removes) a reaction durably ([H23]): an intent of operation `reaction` with one
   * unit, delivered by the adapter's `send.react`; the same `idempotencyKey` returns the first
   * call's receipt. A replay (crash, maybe-sent) re-sends the same operation, which every
   * platform answers idempotently: a replayed add never takes the reaction off.
   * @throws NotSupportedError when the channel cannot add (or remove) reactions.
   * @throws DeliveryFailedError / DeliveryPendingError as `send`.
   */
  react(request: ReactionRequest): Promise<MessageReceipt>;
  /** Writes the intent and returns at once; the delivery worker sends it. */
  enqueue(message: ChannelMessage, options?: SendOptions): Promise<DurableSendIntent>;
  /**
   * Runs `fn` with a send context for one logical message (seed "Send context"):
   * `ctx.render()`, then `ctx.send(rendered)` or `ctx.edit(receipt, rendered)`.
   */
  withSendContext<T>(
    message: ChannelMessage,
    fn: (ctx: SendContext) => Promise<T>,
    options?: SendOptions,
  ): Promise<T>;
};

/** The context `withSendContext` hands to its callback. */
export type SendContext = {
  readonly message: ChannelMessage;
  /** Renders the message through the channel's adapter (pure; nothing is sent). */
  render(): Promise<RenderedMessageBatch>;
  /** Sends the rendered batch durably; resolves with the receipt. */
  send(rendered?: RenderedMessageBatch): Promise<MessageReceipt>;
  /** Edits an earlier message to the rendered batch, durably. */
  edit(receipt: MessageReceipt, rendered?: RenderedMessageBatch): Promise<MessageReceipt>;
  /** Deletes an earlier message, durably. */
  delete(receipt: MessageReceipt): Promise<void>;
};

/** Builds the send API over the delivery engine. */
export function createSendApi(deps: DeliveryDeps, worker: DeliveryWorker): SendApi {
  // The adapter of the message's own account (DESIGN §3 "Accounts").
  const adapterOf = (message: ChannelMessage): ChannelMessageAdapter =>
    deps.requireAdapter(message.channel, message.accountId);

  async function begin(
    message: ChannelMessage,
    operation: IntentOperation,
    options: SendOptions,
    claim: boolean,
  ): Promise<{ intent: DurableSendIntent; created: boolean }> {
    // A default edit key is numbered per message (send/editKey.ts): another edit that took the
    // number first (a race) makes us take the next one.
    const numbered = options.idempotencyKey === undefined && operation.kind === "edit";
    for (let tries = 1; ; tries++) {
      const idempotencyKey =
        options.idempotencyKey ??
        (operation.kind === "edit"
          ? await defaultEditKey(deps.store, message, operation)
          : defaultIdempotencyKey(operation, message));
      const result = await enqueue(idempotencyKey, message, operation, options, claim);
      if (
        numbered &&
        !result.created &&
        tries < 5 &&
        !sameEdit(result.intent, message, operation as Extract<IntentOperation, { kind: "edit" }>)
      ) {
        continue;
      }
      // A reused key is a retry only when it asks for the same thing.
      if (!result.created) {
        assertSameRequest(result.intent, message, operation, options.keyMatch ?? "request");
      }
      failpoint("send.after_begin");
      return result;
    }
  }

  async function enqueue(
    idempotencyKey: string,
    message: ChannelMessage,
    operation: IntentOperation,
    options: SendOptions,
    claim: boolean,
  ): Promise<{ intent: DurableSendIntent; created: boolean }> {
    // Inside `runtime.turn` the scope's root turn id is stamped unless one is given.
    const turnId = options.turnId ?? currentTurnId();
    const [result] = await deps.store.enqueueIntents([
      {
        idempotencyKey,
        message,
        operation,
        ...(options.batch ? { batch: options.batch } : {}),
        ...(turnId ? { turnId } : {}),
        ...maxAgeOf(message, operation, options),
        ...(claim
          ? { claim: { owner: worker.owner, now: deps.clock(), leaseMs: deps.options.leaseMs } }
          : {}),
      },
    ]);
    if (!result) throw new Error("store returned no enqueue result");
    return result;
  }

  /**
   * The folded first attempt (`delivery/fold.ts`): a plain send with no typing to stop first
   * (checked again right before its writes) may be enqueued straight into `sending`.
   * @returns undefined when it was not tried.
   */
  async function beginFoldedSend(
    adapter: ChannelMessageAdapter,
    message: ChannelMessage,
    operation: IntentOperation,
    options: SendOptions,
  ): Promise<FoldOutcome | undefined> {
    if (operation.kind !== "send") return undefined;
    const turnId = options.turnId ?? currentTurnId();
    return beginFolded(deps, adapter, {
      idempotencyKey: options.idempotencyKey ?? defaultIdempotencyKey(operation, message),
      message,
      batch: options.batch,
      turnId,
      ...maxAgeOf(message, operation, options),
      waitsFirst: () => typingOpenFor(message),
    });
  }

  /** `{ maxAgeMs }` of a new send intent (`delivery/expiry.ts`), or nothing. */
  function maxAgeOf(
    message: ChannelMessage,
    operation: IntentOperation,
    options: SendOptions,
  ): { maxAgeMs?: number } {
    if (operation.kind !== "send") return {};
    const maxAgeMs = maxAgeFor(deps, message.channel, options.maxAgeMs);
    return maxAgeMs === undefined ? {} : { maxAgeMs };
  }

  /** An enqueue result of the fold that was not folded, checked as `begin` checks its own. */
  function checked(
    result: { intent: DurableSendIntent; created: boolean },
    message: ChannelMessage,
    operation: IntentOperation,
    options: SendOptions,
  ): { intent: DurableSendIntent; created: boolean } {
    if (!result.created) {
      assertSameRequest(result.intent, message, operation, options.keyMatch ?? "request");
    }
    failpoint("send.after_begin");
    return result;
  }

  // Sends made inside a turn scope are tracked: the turn ends only after they settle.
  const deliver = (message: ChannelMessage, operation: IntentOperation, options: SendOptions) =>
    trackInTurn(deliverNow(message, operation, options));

  async function deliverNow(
    message: ChannelMessage,
    operation: IntentOperation,
    options: SendOptions,
  ): Promise<MessageReceipt> {
    const adapter = adapterOf(message);
    // A file over the channel's limit fails before anything is stored or uploaded.
    if (operation.kind !== "delete" && operation.kind !== "reaction")
      assertAttachmentSizes(message, adapter.capabilities);
    const durability = options.durability ?? "required";
    if (durability === "disabled") {
      if (operation.kind === "send") await replyingInTurn(message);
      return directSend(deps, adapter, message, operation, options);
    }
    let begun: { intent: DurableSendIntent; created: boolean };
    let started: SendingAttempt | undefined;
    try {
      const folded = await beginFoldedSend(adapter, message, operation, options);
      started = folded?.started;
      begun = started
        ? { intent: started.intent, created: true }
        : folded?.result
          ? checked(folded.result, message, operation, options)
          : await begin(message, operation, options, true);
    } catch (error) {
      if (durability === "best_effort" && error instanceof StoreUnavailableError) {
        deps.logger.warn(
          { channel: message.channel, err: error },
          "intent not written; best_effort direct send",
        );
        return directSend(deps, adapter, message, operation, options);
      }
      throw error;
    }
    const { intent } = begun;
    try {
      options.onDurable?.(intent);
    } catch (error) {
      // A folded first attempt holds a delivery slot and its tokens, and its row is already
      // `sending`: finish it now (it is durable and decided; the worker would deliver it anyway),
      // or the slot stays taken for good and the message waits for its lease to lapse.
      if (started) void worker.deliverSending(adapter, started);
      // The same for an intent the enqueue leased to us: delivered now, not once its lease lapses.
      else if (begun.created && intent.leaseOwner === worker.owner)
        void worker.deliverLeased(intent);
      throw error;
    }
    if (intent.status === "sent" && intent.receipt) return intent.receipt;
    // The reply is durable: the turn's typing in its chat stops before it is delivered. A folded
    // send is `sending` already and waits for nothing before its platform call (a crash in a
    // wait would leave it "maybe sent"): the fold is refused while typing is open, so what is
    // found now was opened during its commit, and is stopped without being waited for.
    if (operation.kind === "send") {
      if (started) void replyingInTurn(message);
      else await replyingInTurn(message);
    }
    // What we know of it now stands for the wait's first read: the enqueue result, or the
    // outcome of the inline attempt (none when it made none).
    let known: DurableSendIntent | undefined = intent;
    const waitMs = options.waitMs ?? 30_000;
    const waitStarted = deps.clock();
    const deadline = waitStarted + waitMs;
    // `waitMs` bounds the inline attempt too (a rate-limit wait inside it can be long): past it,
    // the attempt goes on in the background and the caller hears `DeliveryPendingError`.
    const inline = started
      ? worker.deliverSending(adapter, started)
      : begun.created && intent.leaseOwner === worker.owner
        ? worker.deliverLeased(intent)
        : undefined;
    if (inline) {
      known =
        (await within(inline, deadline, deps.clock, (err) =>
          deps.logger.error({ intentId: intent.id, err }, "inline delivery attempt failed"),
        )) ?? known;
    } else worker.kick();
    const final = await worker.waitFor(intent.id, Math.max(0, deadline - deps.clock()), known);
    if (!final) throw new DeliveryFailedError(undefined, intent.id);
    if (final.status === "sent")
      return final.receipt ?? { platformMessageIds: [], parts: [], sentAt: final.updatedAt };
    if (final.status === "failed") throw new DeliveryFailedError(final.failure, final.id);
    if (final.status === "cancelled") throw new DeliveryCancelledError(final.id);
    if (final.status === "expired") throw new DeliveryExpiredError(final);
    throw new DeliveryPendingError(final, deps.clock() - waitStarted);
  }

  const api: SendApi = {
    send: (message, options = {}) => deliver(message, { kind: "send" }, options),
    edit: (receipt, message, options = {}) => deliver(message, { kind: "edit", receipt }, options),
    async delete(receipt, message, options = {}) {
      await deliver(
        message,
        { kind: "delete", receipt },
        {
          ...options,
          batch: options.batch ?? {
            units: [],
            atomicity: "all_or_retry_remaining",
            idempotencyKey:
              options.idempotencyKey ?? defaultIdempotencyKey({ kind: "delete", receipt }, message),
          },
        },
      );
    },
    async react(request) {
      const adapter = deps.requireAdapter(request.channel, request.accountId);
      const caps = adapter.capabilities.reactions;
      if (!adapter.send.react || !caps || !(request.remove ? caps.remove : caps.add))
        throw new NotSupportedError(
          request.remove ? "reactions.remove" : "reactions",
          request.channel,
        );
      const message: ChannelMessage = {
        id: request.idempotencyKey,
        channel: request.channel,
        ...(request.accountId === undefined ? {} : { accountId: request.accountId }),
        direction: "outbound",
        target: request.target,
      };
      const operation: IntentOperation = {
        kind: "reaction",
        messageId: request.messageId,
        emoji: request.emoji,
        ...(request.remove ? { remove: true } : {}),
      };
      return deliver(message, operation, {
        idempotencyKey: request.idempotencyKey,
        batch: reactionBatch(operation, request.idempotencyKey),
        ...(request.waitMs === undefined ? {} : { waitMs: request.waitMs }),
      });
    },
    enqueue(message, options = {}) {
      return trackInTurn(
        (async () => {
          adapterOf(message);
          const { intent } = await begin(message, { kind: "send" }, options, false);
          await replyingInTurn(message);
          worker.kick();
          return intent;
        })(),
      );
    },
    async withSendContext(message, fn, options = {}) {
      const adapter = adapterOf(message);
      const key = options.idempotencyKey ?? defaultIdempotencyKey({ kind: "send" }, message);
      // Each edit and delete of this context is its own operation, with its own key.
      let edits = 0;
      let deletes = 0;
      const ctx: SendContext = {
        message,
        render: async () =>
          adapter.render.render(message, {
            idempotencyKey: key,
            capabilities: adapter.capabilities,
          }),
        send: (rendered) =>
          deliver(
            message,
            { kind: "send" },
            { ...options, idempotencyKey: key, ...(rendered ? { batch: rendered } : {}) },
          ),
        edit: (receipt, rendered) =>
          deliver(
            message,
            { kind: "edit", receipt },
            {
              ...options,
              idempotencyKey: `${key}:edit#${++edits}`,
              ...(rendered ? { batch: rendered } : {}),
            },
          ),
        delete: (receipt) =>
          api.delete(receipt, message, {
            ...options,
            idempotencyKey: `${key}:delete#${++deletes}`,
          }),
      };
      return fn(ctx);
    },
  };
  return api;
}

/** The one-unit batch of a reaction intent (payload: the operation, for logs and the console). */
export function reactionBatch(
  operation: Extract<IntentOperation, { kind: "reaction" }>,
  idempotencyKey: string,
): RenderedMessageBatch {
  return {
    units: [
      {
        index: 0,
        kind: "reaction",
        payload: {
          op: operation.remove ? "reaction.remove" : "reaction.add",
          messageId: operation.messageId,
          emoji: operation.emoji,
        },
        required: true,
      },
    ],
    atomicity: "all_or_retry_remaining",
    idempotencyKey,
  };
}
