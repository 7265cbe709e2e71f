/**
 * The rate-limit call of a durable intent's platform call, and the pause after a 429 — shared by
 * the delivery attempt, its failure handling and non-durable sends.
 *
 * @module
 */
import type { ChannelMessageAdapter } from "../../adapter/types.ts";
import type { RenderedMessageUnit } from "../../message/batch.ts";
import type { DeliveryFailure } from "../../message/failure.ts";
import type { DurableSendIntent } from "../../message/intent.ts";
import type { RateLimitCall } from "../../message/rateLimit.ts";
import type { DeliveryDeps } from "../deps.ts";
import { defaultRateLimitRoute, rateLimitCall } from "./call.ts";

/**
 * The rate-limit call of one unit of an intent: `edit` of a part that exists (else `send`: the
 * new text needs more messages), `delete`, or `send` — routed by the adapter's `rateLimitRoute`.
 * @param as - a call other than the unit's own (see `DeliverUnitsParams.reserve`): `"send"`, a
 *   fresh send of the unit; `"delete"`, the delete of the part at the unit's index.
 */
export function callOf(
  adapter: ChannelMessageAdapter | undefined,
  intent: DurableSendIntent,
  unit?: Pick<RenderedMessageUnit, "index" | "kind">,
  as?: "send" | "delete",
): RateLimitCall {
  const op = intent.operation;
  const part =
    op.kind === "send" || op.kind === "reaction" || !unit || as === "send"
      ? undefined
      : (op.receipt.parts.find((p) => p.index === unit.index) ??
        (op.kind === "edit" && as === undefined ? op.receipt.parts[unit.index] : undefined));
  const operation =
    as ??
    (op.kind === "delete" ? "delete" : op.kind === "reaction" ? "react" : part ? "edit" : "send");
  const input = { operation, target: intent.message.target, unitKind: unit?.kind, part } as const;
  if (!adapter) {
    return {
      channel: intent.channel,
      accountId: intent.accountId,
      target: input.target,
      operation,
      route: defaultRateLimitRoute(input),
    };
  }
  return rateLimitCall(adapter, intent, input);
}

/**
 * Pauses the scope a `rate_limit` failure names (default: the route that was hit) for the
 * platform's retry-after, else for `backoffMs` (Google Chat sends no Retry-After).
 */
export function pauseOnRateLimit(
  deps: DeliveryDeps,
  failure: DeliveryFailure,
  call: RateLimitCall,
  backoffMs: number,
): void {
  if (failure.kind !== "rate_limit") return;
  const waitMs = Math.max(0, failure.retryAfterMs ?? backoffMs);
  deps.scheduler.pause(failure.rateLimitScope ?? "route", call, deps.clock() + waitMs);
}
