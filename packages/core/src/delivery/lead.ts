/**
 * How long the `sending` write before a platform call takes, as a moving average per delivery
 * engine: the lead with which an attempt takes rate-limit tokens that are about to come back
 * (`RateLimitScheduler.acquire`'s `leadMs`), so the write overlaps the wait for the tokens
 * instead of following it. Durations are ms.
 *
 * @module
 */

/** Longest lead ever used (ms): a `sending` row waits at most this long for its call. */
export const MAX_LEAD_MS = 25;

/** An exponentially weighted moving average of write durations (ms). */
export class WriteLead {
  #avg = 0;
  #seen = false;

  /** Records one write that took `ms`. */
  observe(ms: number): void {
    if (!(ms >= 0)) return;
    this.#avg = this.#seen ? this.#avg * 0.8 + ms * 0.2 : ms;
    this.#seen = true;
  }

  /** The lead to take tokens with (ms, 0 … {@link MAX_LEAD_MS}; 0 until a write was seen). */
  get ms(): number {
    return Math.min(MAX_LEAD_MS, Math.floor(this.#avg));
  }
}

const leads = new WeakMap<object, WriteLead>();

/** The write lead of one delivery engine (keyed by its deps object). */
export function writeLeadOf(owner: object): WriteLead {
  let lead = leads.get(owner);
  if (!lead) {
    lead = new WriteLead();
    leads.set(owner, lead);
  }
  return lead;
}
