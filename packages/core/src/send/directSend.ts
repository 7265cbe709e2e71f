/**
 * Non-durable sends (`durability: "disabled"`, or `best_effort` when the store is down): the
 * same rendering, rate limits and unit delivery, with no intent and no retries.
 *
 * @module
 */
import type { ChannelMessageAdapter } from "../adapter/types.ts";
import { reserveTokens } from "../delivery/attempt.ts";
import type { DeliveryDeps } from "../delivery/deps.ts";
import { DeliveryFailedError } from "../delivery/errors.ts";
import { subjectOf } from "../delivery/RateLimitScheduler.ts";
import { deliverUnits } from "../delivery/units.ts";
import type { DurableSendIntent, IntentOperation } from "../message/intent.ts";
import { orderingKeyOf } from "../message/intent.ts";
import { defaultIdempotencyKey } from "../message/keys.ts";
import type { ChannelMessage } from "../message/message.ts";
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
  const idempotencyKey = options.idempotencyKey ?? defaultIdempotencyKey(operation, message);
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
  const outcome = await deliverUnits({
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
      ...(message.accountId !== undefined ? { accountId: message.accountId } : {}),
    },
    reserve: async (unit) => {
      // No queue to fall back to: wait as long as the limits require.
      for (;;) {
        const wait = await reserveTokens(deps, adapter, subjectOf(pseudo, unit), signal);
        if (wait === 0) return 0;
      }
    },
    onPart: async () => {},
  });
  if (outcome.status === "done") return outcome.receipt;
  if (outcome.status === "failed") throw new DeliveryFailedError(outcome.failure);
  throw new Error("unreachable: direct sends never defer");
}
