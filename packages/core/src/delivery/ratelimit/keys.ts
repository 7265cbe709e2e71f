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

/**
 * The key of one scope kind for a call: `chat` → channel + account + chat id, etc. The chat is
 * the platform's own (`target.nativeChannelId` when set, else `target.id`): a DM named by the
 * person and by its channel is one chat on the platform, and one bucket (CASES C44).
 */
export function scopeKey(kind: RateLimitScopeKind, call: RateLimitCall): string {
  const base = `${kind}${SEP}${call.channel}${SEP}${call.accountId ?? ""}`;
  if (kind === "account") return base;
  if (kind === "route") return `${base}${SEP}${call.route}`;
  const chat = call.target.nativeChannelId ?? call.target.id;
  if (kind === "chat") return `${base}${SEP}${chat}`;
  return `${base}${SEP}${chat}${SEP}${call.target.threadId ?? ""}`;
}

/** The key of a platform-reported bucket (header feedback) of one channel account. */
export function observedKey(
  call: Pick<RateLimitCall, "channel" | "accountId">,
  bucket: string,
): string {
  return `observed${SEP}${call.channel}${SEP}${call.accountId ?? ""}${SEP}${bucket}`;
}

/** The route's key within its channel account (for the route → bucket map). */
export function routeKey(call: RateLimitCall): string {
  return scopeKey("route", call);
}

const ids = new WeakMap<RateLimitScope, string>();

/** The bucket id of a declared scope: its `id`, else its fields (computed once per object). */
export function scopeId(scope: RateLimitScope): string {
  let id = ids.get(scope);
  if (id !== undefined) return id;
  if (scope.id !== undefined) id = `id:${scope.id}`;
  else {
    const kinds = scope.targetKinds ? [...scope.targetKinds].sort().join(",") : "*";
    const ops = scope.operations ? [...scope.operations].sort().join(",") : "*";
    id = `${scope.scope}/${scope.limit}/${scope.intervalMs}/${kinds}/${ops}`;
  }
  ids.set(scope, id);
  return id;
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
