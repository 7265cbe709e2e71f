/**
 * Builds the {@link RateLimitCall} of one platform call, durable or live, with the route key the
 * adapter chose (`ChannelMessageAdapter.rateLimitRoute`) or the default one. Delivery and live
 * previews both build their calls here, so they land in the same buckets.
 *
 * @module
 */
import type { ChannelMessageAdapter } from "../../adapter/types.ts";
import type { RateLimitCall, RateLimitRouteInput } from "../../message/rateLimit.ts";

/** The default route key: `${operation}:${unitKind}:${target.id}` (one route per chat). */
export function defaultRateLimitRoute(input: RateLimitRouteInput): string {
  return `${input.operation}:${input.unitKind ?? "text"}:${input.target.id}`;
}

/**
 * The rate-limit call of one platform call of `adapter` for an account.
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
    accountId: account.accountId,
    target: input.target,
    operation: input.operation,
    route: route || defaultRateLimitRoute(input),
  };
}
