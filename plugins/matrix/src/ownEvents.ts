/**
 * Finding the bot's own events by transaction id (CASES C39, PLATFORMS.md §9, DESIGN §12): an
 * event a device sent carries that device's txnId in `unsigned.transaction_id` whenever it is
 * returned **to the same device** (in `/sync` timelines and `/messages`). That is evidence from
 * the homeserver's timeline itself, so it does not depend on how long the server remembers txnIds
 * (Synapse a day, Dendrite 30–60 min in memory and nothing after a restart, the spec nothing).
 *
 * The lookup pages the room back from its newest event with a `senders: [me]` filter (servers
 * that ignore the filter cost more pages, nothing else: every event is checked here) until every
 * wanted txnId is found, the room's start is reached, or the `bound` event (an earlier part of the
 * same message, which the sought events must follow) is passed — the last two prove the rest
 * absent — or `maxPages` pages were read (nothing proven).
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#definition-clientevent (`unsigned`),
 * https://spec.matrix.org/latest/client-server-api/#transaction-identifiers
 *
 * @module
 */
import type { MatrixHttp } from "./client.ts";
import { pageBack } from "./messages.ts";

/** Events per lookup page. */
const LOOKUP_PAGE_SIZE = 100;

/** What a lookup found. */
export type OwnEventsFound = {
  /** txnId → event id, for each wanted txnId found. */
  found: Map<string, string>;
  /**
   * The txnIds not found are proven absent: the room's start (or the `bound` event) was reached
   * without seeing them.
   */
  complete: boolean;
  /** Pages read. */
  pages: number;
};

/** What to look for. */
export type OwnEventsQuery = {
  roomId: string;
  /** The bot's user id (only its events can carry its txnIds). */
  userId: string;
  /** The txnIds sought. */
  txnIds: readonly string[];
  /** Most pages read. */
  maxPages: number;
  /** An event id the sought events were sent after: reaching it ends the search, complete. */
  bound?: string | undefined;
  signal?: AbortSignal | undefined;
};

type Seen = { event_id?: unknown; sender?: unknown; unsigned?: { transaction_id?: unknown } };

/**
 * Looks for the bot's own events carrying `txnIds` in `unsigned.transaction_id`.
 *
 * @throws MatrixApiError / MatrixNetworkError when a page cannot be read.
 */
export async function findOwnEvents(
  http: MatrixHttp,
  query: OwnEventsQuery,
): Promise<OwnEventsFound> {
  const wanted = new Set(query.txnIds);
  const found = new Map<string, string>();
  let passedBound = false;
  const result = await pageBack(
    http,
    query.roomId,
    {
      limit: LOOKUP_PAGE_SIZE,
      maxPages: query.maxPages,
      filter: { senders: [query.userId] },
      signal: query.signal,
    },
    (events) => {
      for (const raw of events) {
        const event = raw as Seen;
        if (typeof event?.event_id !== "string") continue;
        if (event.event_id === query.bound) passedBound = true;
        const txnId = event.unsigned?.transaction_id;
        if (event.sender !== query.userId || typeof txnId !== "string") continue;
        if (wanted.has(txnId) && !found.has(txnId)) found.set(txnId, event.event_id);
      }
      return found.size === wanted.size || passedBound;
    },
  );
  const complete = found.size === wanted.size || passedBound || result.reachedEnd;
  return { found, complete, pages: result.pages };
}
