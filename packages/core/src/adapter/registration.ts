/**
 * Which registration an adapter object serves as (DESIGN §3 "Accounts"): the account key it was
 * registered under in an {@link AdapterRegistry} — `""` for a bare adapter (it serves every
 * account of its channel that has none of its own), else the account id. Rate-limit buckets and
 * pauses are keyed by it, not by the account a caller named: a send naming account `main` that
 * the bare adapter serves and a live session naming no account are one bot, one set of buckets.
 *
 * Recorded per adapter object (the registry's stored object: the redacting wrapper when the
 * runtime redacts, so one per registration). An object registered under several keys keeps the
 * first: it is one client, so its calls share one set of buckets.
 *
 * @module
 */
import type { ChannelMessageAdapter } from "./types.ts";

const accountKeys = new WeakMap<ChannelMessageAdapter, string>();

/** Records that `adapter` is registered under `accountKey` (`""`: bare), unless it already is. */
export function recordRegistration(adapter: ChannelMessageAdapter, accountKey: string): void {
  if (!accountKeys.has(adapter)) accountKeys.set(adapter, accountKey);
}

/** Forgets the registration of `adapter` under `accountKey` (it was removed or replaced). */
export function forgetRegistration(adapter: ChannelMessageAdapter, accountKey: string): void {
  if (accountKeys.get(adapter) === accountKey) accountKeys.delete(adapter);
}

/**
 * The account a call of `adapter` counts against: its registration's account id (`undefined`
 * for a bare adapter); `fallback` when the object is not registered anywhere (used directly).
 */
export function registeredAccount(
  adapter: ChannelMessageAdapter,
  fallback: string | undefined,
): string | undefined {
  const key = accountKeys.get(adapter);
  if (key === undefined) return fallback;
  return key === "" ? undefined : key;
}
