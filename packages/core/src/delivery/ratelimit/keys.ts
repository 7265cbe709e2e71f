/**
 * Keys of rate-limit buckets and pauses: which declared scopes apply to a call, and the key of
 * a scope kind for a call. Every key starts with channel and account, so two bots of one
 * platform never share a bucket (DESIGN §3 "Accounts").
 *
 * @module
 */
import type { RateLimitCall, RateLimitScope } from "../../message/rateLimit.ts";

/** A scope kind: `account`, `chat`, `thread` or `route`. */
export type RateLimitScopeKind = RateLimitScope["scope"];

const SEP = "\u0000";

/** The key of one scope kind for a call: `chat` → channel + account + chat id, etc. */
export function scopeKey(kind: RateLimitScopeKind, call: RateLimitCall): string {
  const parts = [kind, call.channel, call.accountId ?? ""];
  if (kind === "route") parts.push(call.route);
  else if (kind !== "account") parts.push(call.target.id);
  if (kind === "thread") parts.push(call.target.threadId ?? "");
  return parts.join(SEP);
}

/** The key of a platform-reported bucket (header feedback) of one channel account. */
export function observedKey(call: RateLimitCall, bucket: string): string {
  return ["observed", call.channel, call.accountId ?? "", bucket].join(SEP);
}

/** The route's key within its channel account (for the route → bucket map). */
export function routeKey(call: RateLimitCall): string {
  return scopeKey("route", call);
}

/** The bucket id of a declared scope: its `id`, else its fields. */
export function scopeId(scope: RateLimitScope): string {
  if (scope.id !== undefined) return `id:${scope.id}`;
  const kinds = scope.targetKinds ? [...scope.targetKinds].sort().join(",") : "*";
  const ops = scope.operations ? [...scope.operations].sort().join(",") : "*";
  return `${scope.scope}/${scope.limit}/${scope.intervalMs}/${kinds}/${ops}`;
}

/** True when a declared scope covers the call (target kind and operation). */
export function applies(scope: RateLimitScope, call: RateLimitCall): boolean {
  if (scope.targetKinds && !scope.targetKinds.includes(call.target.kind)) return false;
  if (scope.operations && !scope.operations.includes(call.operation)) return false;
  return true;
}

/** The bucket key of a declared scope for a call. */
export function bucketKey(scope: RateLimitScope, call: RateLimitCall): string {
  return `${scopeId(scope)}${SEP}${scopeKey(scope.scope, call)}`;
}
