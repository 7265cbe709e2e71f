/**
 * The restart seed of the in-memory rate-limit buckets: a process that starts right after its
 * predecessor died (SIGKILL, crash, deploy) would otherwise not know the calls made in the last
 * window and send straight into the platform's limits (a 429 per call, until the window
 * passed). Before the worker's first lease, the platform calls the store shows in the longest
 * declared window are counted as tokens taken when their intent was last written.
 *
 * @module
 */
import type { ChannelMessageAdapter } from "../../adapter/types.ts";
import type { IntentStatus } from "../../message/intent.ts";
import type { DeliveryDeps } from "../deps.ts";
import { callOf } from "./intent.ts";

/** The longest window looked back (ms), whatever an adapter declares. */
export const SEED_MAX_WINDOW_MS = 60_000;

/** Intents read per query (pages in seq order). */
export const SEED_PAGE = 2_000;

/**
 * Most queries: the seed reads at most this many pages, so up to 20,000 calls in the window
 * (333 a second over a minute) are counted, the newest included.
 */
export const SEED_MAX_PAGES = 10;

/**
 * Statuses whose intent made its platform call: `sent` and `committing` (answered), `sending`
 * and `unknown_after_send` (maybe made; counted, the platform may have).
 */
const CALLED: IntentStatus[] = ["sent", "committing", "sending", "unknown_after_send"];

/** What {@link seedRateLimits} counted. */
export type SeedReport = {
  /** Intents counted, one token each in every bucket its call falls in. */
  counted: number;
  /** Epoch ms the query looked back to (exclusive); undefined when nothing was asked. */
  since?: number;
};

/**
 * Counts the platform calls made within the longest window the registered adapters declare
 * (`capabilities.rateLimits`, capped at {@link SEED_MAX_WINDOW_MS}) into the in-memory buckets
 * of `deps.scheduler`: each intent whose status shows a call was made and whose last write
 * (`updatedAt`, close to the call's answer) falls in the window is one token, taken at that
 * time, for its call (`callOf`). One store query per 2,000 intents (at most
 * {@link SEED_MAX_PAGES}), never a wait; intents of adapters not
 * registered are skipped, and so is everything when the buckets are shared in the store
 * (they survive restarts by themselves).
 *
 * @param adapters - the registered adapters (for the window).
 */
export async function seedRateLimits(
  deps: Pick<DeliveryDeps, "store" | "scheduler" | "clock" | "adapterFor">,
  adapters: readonly ChannelMessageAdapter[],
): Promise<SeedReport> {
  if (deps.scheduler.shared) return { counted: 0 };
  let windowMs = 0;
  for (const a of adapters) {
    for (const s of a.capabilities.rateLimits ?? []) windowMs = Math.max(windowMs, s.intervalMs);
  }
  windowMs = Math.min(windowMs, SEED_MAX_WINDOW_MS);
  if (windowMs <= 0) return { counted: 0 };
  const now = deps.clock();
  // A token taken at `t` is out until t + interval + the answer margin (≥ 1 ms): one ms more.
  const since = now - windowMs - 1;
  let counted = 0;
  let afterSeq = 0;
  for (let page = 0; page < SEED_MAX_PAGES; page++) {
    const intents = await deps.store.listIntents({
      statuses: CALLED,
      updatedAfter: since,
      afterSeq,
      limit: SEED_PAGE,
    });
    for (const intent of intents) {
      const adapter = deps.adapterFor(intent.channel, intent.accountId);
      const scopes = adapter?.capabilities.rateLimits;
      if (!adapter || !scopes?.length) continue;
      deps.scheduler.recordPast(scopes, callOf(adapter, intent), intent.updatedAt, now);
      counted += 1;
    }
    const last = intents.at(-1);
    if (intents.length < SEED_PAGE || !last) break;
    afterSeq = last.seq;
  }
  return { counted, since };
}
