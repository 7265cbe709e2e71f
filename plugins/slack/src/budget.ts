/**
 * The history-read budget of a workspace (PLATFORMS.md §8): since 2025 apps that are not in the
 * Marketplace may call `conversations.history` and `conversations.replies` about once a minute,
 * 15 messages a page. Every reconciliation of one workspace takes its reads from one paced
 * budget; a read Slack still rate-limits pushes the next slot past its `Retry-After`.
 *
 * The budget is per process: several gateway processes on one workspace each pace themselves
 * (set `historyIntervalMs` to the interval times the number of processes).
 *
 * @module
 */

/** One workspace's paced read slots. */
export class HistoryBudget {
  #nextAt = 0;
  readonly #intervalMs: number;
  readonly #clock: () => number;

  /** @param intervalMs - least time between two reads, in ms. */
  constructor(intervalMs: number, clock: () => number = Date.now) {
    this.#intervalMs = intervalMs;
    this.#clock = clock;
  }

  /**
   * Takes the next read slot.
   * @returns how long to wait for it, in ms; undefined (nothing taken) when that is more than
   *   `maxWaitMs`.
   */
  reserve(maxWaitMs: number): number | undefined {
    const now = this.#clock();
    const at = Math.max(now, this.#nextAt);
    if (at - now > maxWaitMs) return undefined;
    this.#nextAt = at + this.#intervalMs;
    return at - now;
  }

  /** Slack answered a read with a rate limit: no read before `retryAfterMs` from now. */
  pause(retryAfterMs: number): void {
    this.#nextAt = Math.max(this.#nextAt, this.#clock() + Math.max(retryAfterMs, this.#intervalMs));
  }
}

const budgets = new Map<string, HistoryBudget>();

/**
 * The budget of a workspace (`apiUrl` + team id), shared by every adapter of this process.
 * @param intervalMs - used when the budget is created.
 */
export function workspaceBudget(
  apiUrl: string,
  teamId: string,
  intervalMs: number,
  clock: () => number = Date.now,
): HistoryBudget {
  const key = `${apiUrl}|${teamId}|${intervalMs}`;
  let budget = budgets.get(key);
  if (!budget) {
    budget = new HistoryBudget(intervalMs, clock);
    budgets.set(key, budget);
  }
  return budget;
}
