/**
 * Builds the {@link RateLimitCall} of one platform call, durable or live, with the route key the
 * adapter chose (`ChannelMessageAdapter.rateLimitRoute`) or the default one. Delivery and live
 * previews both build their calls here, so they land in the same buckets.
 *
 * @module
 */
import { registeredAccount } from "../../adapter/registration.ts";
import type { ChannelMessageAdapter } from "../../adapter/types.ts";
import type { DeliveryFailure } from "../../message/failure.ts";
import type { RateLimitCall, RateLimitRouteInput } from "../../message/rateLimit.ts";

/** The default route key: `${operation}:${unitKind}:${chat}` (one route per chat; the chat is `target.nativeChannelId` when set, else `target.id`). */
export function defaultRateLimitRoute(input: RateLimitRouteInput): string {
  return `${input.operation}:${input.unitKind ?? "text"}:${input.target.nativeChannelId ?? input.target.id}`;
}

/**
 * The rate-limit call of one platform call of `adapter` for an account. The call counts against
 * the account `adapter` is registered for (`registeredAccount`: a bare adapter's calls share
 * one set of buckets whichever account the caller named), else against `account.accountId`.
 * An adapter whose `rateLimitRoute` throws or answers nothing gets the default route.
 */
export function rateLimitCall(
  adapter: ChannelMessageAdapter,
  account: { channel: string; accountId?: string | undefined },
  input: RateLimitRouteInput,
): RateLimitCall {
  let route: string | undefined;
  try {
    route = adapter.rateLimitRoute?.(input);
  } catch {
    route = undefined;
  }
  return {
    channel: account.channel,
    accountId: registeredAccount(adapter, account.accountId),
    target: input.target,
    operation: input.operation,
    route: route || defaultRateLimitRoute(input),
  };
}

/**
 * The failure of a call held back at the last moment because its route or chat was paused by a
 * 429 after its tokens were taken: `rate_limit`, `not_dispatched` (nothing reached the
 * platform), `retryAfterMs` = the rest of the pause.
 *
 * @param waitMs - ms until the pause ends (`RateLimitScheduler.pausedMs`).
 */
export function pausedFailure(waitMs: number): DeliveryFailure {
  return {
    kind: "rate_limit",
    evidence: "not_dispatched",
    retryAfterMs: waitMs,
    message: `held back: paused for ${waitMs} ms after a 429`,
  };
}
