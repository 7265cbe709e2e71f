/**
 * Non-durable sends (`durability: "disabled"`, or `best_effort` when the store is down): the
 * same rendering, rate limits and unit delivery, with no intent and no retries.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { runSendHook } from "../adapter/hooks.ts";
import type { ChannelMessageAdapter } from "../adapter/types.ts";
import { reserveTokens } from "../delivery/attempt.ts";
import type { DeliveryDeps } from "../delivery/deps.ts";
import { DeliveryFailedError } from "../delivery/errors.ts";
import { callOf, pauseOnRateLimit } from "../delivery/ratelimit/intent.ts";
import { deliverUnits } from "../delivery/units.ts";
import { backoffDelayMs } from "../message/failure.ts";
import type { DurableSendIntent, IntentOperation } from "../message/intent.ts";
import { orderingKeyOf } from "../message/intent.ts";
import { defaultIdempotencyKey, editKey } from "../message/keys.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { RateLimitCall } from "../message/rateLimit.ts";
import type { MessageReceipt } from "../message/receipt.ts";

/**
 * Sends without an intent.
 * @throws DeliveryFailedError on any failure (nothing is retried).
 */
export async function directSend(
  deps: DeliveryDeps,
  adapter: ChannelMessageAdapter,
  message: ChannelMessage,
  operation: IntentOperation,
  options: { idempotencyKey?: string; batch?: DurableSendIntent["batch"] },
): Promise<MessageReceipt> {
  // No store to number edits by: each direct edit is its own operation.
  const idempotencyKey =
    options.idempotencyKey ??
    (operation.kind === "edit"
      ? editKey(message, operation.receipt, `direct.${randomUUID()}`)
      : defaultIdempotencyKey(operation, message));
  const now = deps.clock();
  const pseudo: DurableSendIntent = {
    id: "",
    idempotencyKey,
    channel: message.channel,
    message,
    operation,
    orderingKey: orderingKeyOf(message),
    seq: 0,
    status: "sending",
    attempt: 1,
    createdAt: now,
    updatedAt: now,
    ...(message.accountId !== undefined ? { accountId: message.accountId } : {}),
  };
  const batch =
    options.batch ??
    (await adapter.render.render(message, { idempotencyKey, capabilities: adapter.capabilities }));
  const signal = new AbortController().signal;
  let current: RateLimitCall | undefined; // the call the last tokens were taken for
  // Bounded like every platform call (`delivery.concurrency`, shared with the worker and live).
  const outcome = await deps.slots.run(() =>
    deliverUnits({
      adapter,
      batch,
      operation,
      previous: undefined,
      clock: deps.clock,
      redact: deps.options.redact,
      ctx: {
        channel: message.channel,
        message,
        attempt: 1,
        idempotencyKey,
        signal,
        log: deps.logger.child({ channel: message.channel, durable: false }),
        reportRateLimit: (feedback) => {
          if (current) deps.scheduler.observe(current, feedback, deps.clock());
        },
        ...(message.accountId !== undefined ? { accountId: message.accountId } : {}),
      },
      reserve: async (unit, _index, as) => {
        // No queue to fall back to: wait as long as the limits require.
        current = callOf(adapter, pseudo, unit, as);
        for (;;) {
          const wait = await reserveTokens(deps, adapter, current, signal);
          if (wait === 0) return 0;
        }
      },
      onPart: async () => {},
    }),
  );
  if (outcome.status === "done") {
    if (operation.kind !== "delete") {
      // Nothing is stored: the receipt is final once every unit landed.
      await runSendHook(
        adapter,
        "afterCommit",
        {
          channel: message.channel,
          message,
          attempt: 1,
          idempotencyKey,
          unitIdempotencyKey: idempotencyKey,
          previousReceipt: outcome.receipt,
          signal,
          log: deps.logger.child({ channel: message.channel, durable: false }),
          ...(message.accountId !== undefined ? { accountId: message.accountId } : {}),
        },
        outcome.receipt,
      );
    }
    return outcome.receipt;
  }
  if (outcome.status === "failed") {
    // Not retried here, but the route that was hit waits like any other (durable sends too).
    const backoff = backoffDelayMs(1, deps.options.backoff, deps.random);
    pauseOnRateLimit(deps, outcome.failure, current ?? callOf(adapter, pseudo), backoff);
    throw new DeliveryFailedError(outcome.failure);
  }
  throw new Error("unreachable: direct sends never defer");
}
