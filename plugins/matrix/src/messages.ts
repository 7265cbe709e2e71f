/**
 * Paging a room's history backwards with `GET /rooms/{roomId}/messages?dir=b`, the one copy used
 * by the receiver's back-fill of a `limited` timeline and by the lookup of the bot's own in-doubt
 * events (`ownEvents.ts`).
 *
 * **An empty page is not the end** (CASES C38, PLATFORMS.md §9): the spec ends pagination only
 * when `end` is absent ("If no further events are available … this property is omitted").
 * Synapse fetches a page and only then drops the events the client may not see (ignored users,
 * history visibility — `synapse/handlers/pagination.py`, `filter_events_for_client`), so a page
 * can come back `chunk: []` with an `end` while older events exist. Paging goes on while `end`
 * is there; an `end` equal to the page's own `from` token moves nowhere and counts as the end.
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#get_matrixclientv3roomsroomidmessages
 *
 * @module
 */
import { type MatrixHttp, seg } from "./client.ts";

const MESSAGES_CALL = "GET /rooms/{roomId}/messages";

type MessagesAnswer = { chunk?: unknown; end?: unknown };

/** What to page. */
export type PageBackOptions = {
  /** The token to start from; absent: the newest event (spec v1.3+). */
  from?: string;
  /** The token to stop at (exclusive), e.g. a `/sync` `since`. */
  to?: string;
  /** Events per page (the server may return fewer). */
  limit: number;
  /** Most pages read. */
  maxPages: number;
  /** A `RoomEventFilter`, e.g. `{ senders: [me] }` (servers may ignore it: check each event). */
  filter?: Record<string, unknown>;
  signal?: AbortSignal | undefined;
};

/** How paging ended. */
export type PageBackResult = {
  /** Pages read. */
  pages: number;
  /** The server said there is nothing older (no `end`, or an `end` that does not move). */
  reachedEnd: boolean;
  /** `onPage` asked to stop. */
  stopped: boolean;
  /** The token of the next page when paging stopped at `maxPages` (neither end nor stop). */
  next?: string;
};

/**
 * Pages backwards, newest first, calling `onPage` with every page's events (possibly none) until
 * `onPage` returns `true`, the server has nothing older, or `maxPages` pages were read.
 *
 * @throws MatrixApiError / MatrixNetworkError of a failed page (pages read before it were
 *   already handed to `onPage`).
 */
export async function pageBack(
  http: MatrixHttp,
  roomId: string,
  options: PageBackOptions,
  onPage: (events: readonly unknown[]) => boolean | undefined,
): Promise<PageBackResult> {
  let from = options.from;
  let pages = 0;
  while (pages < options.maxPages) {
    const page = await http.request<MessagesAnswer>(
      "GET",
      `/rooms/${seg(roomId)}/messages`,
      MESSAGES_CALL,
      {
        query: {
          from,
          to: options.to,
          dir: "b",
          limit: String(options.limit),
          filter: options.filter ? JSON.stringify(options.filter) : undefined,
        },
        signal: options.signal,
      },
    );
    pages += 1;
    const events: unknown[] = Array.isArray(page?.chunk) ? page.chunk : [];
    if (onPage(events)) return { pages, reachedEnd: false, stopped: true };
    const end = typeof page?.end === "string" && page.end !== "" ? page.end : undefined;
    if (end === undefined || end === from) return { pages, reachedEnd: true, stopped: false };
    from = end;
  }
  return {
    pages,
    reachedEnd: false,
    stopped: false,
    ...(from !== undefined ? { next: from } : {}),
  };
}
