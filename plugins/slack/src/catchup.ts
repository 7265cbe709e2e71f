/**
 * Inbound catch-up (CASES C54): what people wrote while the gateway was down. Slack retries an
 * Events API delivery only 3 times in about 5 minutes, and Socket Mode not at all; so at every
 * receiver start herald reads, for each conversation the bot is a member of
 * (`users.conversations`), `conversations.history` since the last message it saw there, and
 * `conversations.replies` for threads with replies since (threads whose root is in that window,
 * and the threads it saw recently, kept with the position). Each message found is handed to the
 * sink like a live event — the same identity (team + channel + ts), so one Slack also retried is
 * handled once — oldest first, one conversation after the other.
 *
 * Positions are durable per conversation (`conversationPositions`, source `history:<channel>`)
 * and advanced by live events too (once the conversation was caught up in this run), so a
 * catch-up starts where the receiver left off. Threads are followed once a reply in them was
 * seen (the bot's own answers in a thread count), the `catchUp.maxThreads` most recently active
 * per conversation, each costing one paced read per catch-up. A
 * conversation without a position is read from the account's first start (kept under
 * `history-since`), never more than `catchUp.maxAgeMs` back.
 *
 * Reads are paced by the workspace's history budget (`reconcile.historyIntervalMs`, shared with
 * reconciliation): since 2025 apps outside the Marketplace may call `conversations.history` /
 * `replies` about once a minute, 15 messages a page (PLATFORMS.md §8). A catch-up of N
 * conversations therefore takes about N minutes or more; it runs beside the live receiver.
 *
 * Sources: docs.slack.dev/reference/methods/conversations.history, …/conversations.replies,
 * …/users.conversations; api.slack.com/changelog/2025-05-terms-rate-limit-update-and-faq.
 *
 * @module
 */
import {
  type CatchUpLiveMessage,
  type CatchUpReceiver,
  type CatchUpRunContext,
  type ChannelReceiver,
  type ChannelReceiverSink,
  createCatchUpReceiver,
  sleep,
} from "@herald/plugin-sdk/channel-message";
import type { WebClient } from "@slack/web-api";
import type { SlackIdentity } from "./account.ts";
import { workspaceBudget } from "./budget.ts";
import type { SlackConfig } from "./config.ts";
import { classifyError } from "./errors.ts";

/** A conversation's catch-up position: the newest `ts` seen, and recently active threads. */
export type SlackPosition = {
  /** The newest top-level or reply `ts` seen in the conversation. */
  ts: string;
  /** Thread root `ts` → the newest reply `ts` seen in it (the most recent few). */
  threads?: Record<string, string>;
};

type HistoryMessage = {
  ts?: string;
  thread_ts?: string;
  reply_count?: number;
  latest_reply?: string;
  subtype?: string;
  [key: string]: unknown;
};

type Conversation = { id: string; is_im?: boolean; is_mpim?: boolean; is_private?: boolean };

/** What one catch-up run did. */
export type SlackCatchUpReport = {
  conversations: number;
  /** History and replies reads made. */
  reads: number;
  /** Messages handed to the sink. */
  delivered: number;
  /** Conversations whose window held more than was read (logged; the rest is not caught up). */
  truncated: number;
};

/** Options of {@link createSlackCatchUpReceiver}. */
export type SlackCatchUpOptions = {
  client: WebClient;
  sink: ChannelReceiverSink;
  /** Builds the live receiver (Events API or Socket Mode) over the sink it delivers into. */
  receiver(sink: ChannelReceiverSink): ChannelReceiver;
  config: Pick<SlackConfig, "catchUp" | "reconcile" | "slackApiUrl">;
  identity: () => Promise<SlackIdentity>;
  secrets: readonly string[];
  /** Epoch-ms clock. @defaultValue Date.now */
  clock?: () => number;
};

const newer = (a: string | undefined, b: string): string =>
  a !== undefined && Number(a) >= Number(b) ? a : b;

/** Slack's `ts` of an epoch-ms instant. */
const tsOf = (ms: number): string => (Math.max(0, ms) / 1_000).toFixed(6);

/** The position after a message `ts` (in thread `root`, if a reply), keeping `maxThreads` threads. */
export function advancePosition(
  current: SlackPosition | undefined,
  ts: string,
  root: string | undefined,
  maxThreads: number,
): SlackPosition {
  const threads = { ...(current?.threads ?? {}) };
  if (root !== undefined && maxThreads > 0) {
    threads[root] = newer(threads[root], ts);
    const kept = Object.entries(threads)
      .sort((a, b) => Number(b[1]) - Number(a[1]))
      .slice(0, maxThreads);
    return { ts: newer(current?.ts, ts), threads: Object.fromEntries(kept) };
  }
  return {
    ts: newer(current?.ts, ts),
    ...(Object.keys(threads).length > 0 ? { threads } : {}),
  };
}

function decodePosition(text: string): SlackPosition | undefined {
  try {
    const v = JSON.parse(text) as SlackPosition;
    return typeof v?.ts === "string" && /^\d+\.\d+$/.test(v.ts) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** A live Events API body's message (channel, ts, thread root), when it is one. */
function liveMessage(raw: unknown): { channel: string; ts: string; root?: string } | undefined {
  const body = raw as { type?: unknown; event?: Record<string, unknown> } | null;
  const e = body?.type === "event_callback" ? body.event : undefined;
  if (!e || (e.type !== "message" && e.type !== "app_mention")) return undefined;
  if (
    typeof e.subtype === "string" &&
    e.subtype !== "thread_broadcast" &&
    e.subtype !== "bot_message"
  )
    return undefined;
  if (typeof e.channel !== "string" || typeof e.ts !== "string") return undefined;
  const root = typeof e.thread_ts === "string" && e.thread_ts !== e.ts ? e.thread_ts : undefined;
  return { channel: e.channel, ts: e.ts, ...(root ? { root } : {}) };
}

/** A live Events API body's message as a position move, when it is one. */
function liveOf(raw: unknown, maxThreads: number): CatchUpLiveMessage<SlackPosition> | undefined {
  const m = liveMessage(raw);
  return m
    ? { conversation: m.channel, next: (p) => advancePosition(p, m.ts, m.root, maxThreads) }
    : undefined;
}

/**
 * Wraps the live receiver of one account with catch-up (see the module notes): at each start
 * it reads what was missed; live messages keep their conversation's order behind it.
 */
export function createSlackCatchUpReceiver(
  options: SlackCatchUpOptions,
): CatchUpReceiver<SlackCatchUpReport> {
  const { client, sink, config, secrets } = options;
  const settings = config.catchUp;
  const clock = options.clock ?? Date.now;
  // A sink built by hand in a test may have no logger.
  const log = sink.logger?.child({ catchUp: "slack" });

  const conversations = async (): Promise<Conversation[]> => {
    const all: Conversation[] = [];
    let cursor: string | undefined;
    do {
      let page: { channels?: Conversation[]; response_metadata?: { next_cursor?: string } };
      try {
        page = (await client.users.conversations({
          types: settings.types.join(","),
          exclude_archived: true,
          limit: 200,
          ...(cursor ? { cursor } : {}),
        })) as typeof page;
      } catch (error) {
        const failure = classifyError(error, secrets);
        throw new Error(
          `slack catch-up: users.conversations failed (${failure.kind}): ${failure.message}`,
        );
      }
      all.push(...(page.channels ?? []));
      cursor = page.response_metadata?.next_cursor || undefined;
    } while (cursor);
    return all;
  };

  const run = async (context: CatchUpRunContext<SlackPosition>): Promise<SlackCatchUpReport> => {
    const { positions, signal } = context;
    const report: SlackCatchUpReport = { conversations: 0, reads: 0, delivered: 0, truncated: 0 };
    const me = await options.identity();
    const budget = workspaceBudget(
      config.slackApiUrl,
      me.teamId,
      config.reconcile.historyIntervalMs,
      clock,
    );
    const since = await positions.firstStart(clock());
    /** One paced history read; a 429 pauses the budget and is tried again. */
    const read = async <R>(call: () => Promise<R>): Promise<R | undefined> => {
      for (;;) {
        const wait = budget.reserve(Number.POSITIVE_INFINITY) ?? 0;
        if (wait > 0) await sleep(wait, signal);
        if (signal.aborted) return undefined;
        try {
          report.reads += 1;
          return await call();
        } catch (error) {
          const failure = classifyError(error, secrets);
          if (failure.kind !== "rate_limit")
            throw new Error(
              `slack catch-up: history read failed (${failure.kind}): ${failure.message}`,
            );
          budget.pause(failure.retryAfterMs ?? 60_000);
        }
      }
    };
    for (const conversation of await conversations()) {
      if (signal.aborted) break;
      report.conversations += 1;
      const channel = conversation.id;
      const position = await positions.get(channel);
      const floor = clock() - settings.maxAgeMs;
      const start = position?.ts ?? tsOf(Math.max(since, floor));
      if (Number(start) * 1_000 < floor) {
        log?.warn(
          { channel, since: start },
          "catch-up: the gap is older than catchUp.maxAgeMs; reading from there",
        );
      }
      const oldest = Number(start) * 1_000 < floor ? tsOf(floor) : start;
      const found = new Map<string, HistoryMessage>();
      const threads = new Map<string, string>(Object.entries(position?.threads ?? {}));
      // Top-level messages (newest first, paged).
      let cursor: string | undefined;
      let pages = 0;
      for (;;) {
        const page = (await read(() =>
          client.conversations.history({
            channel,
            oldest,
            inclusive: false,
            limit: settings.pageLimit,
            include_all_metadata: true,
            ...(cursor ? { cursor } : {}),
          }),
        )) as
          | {
              messages?: HistoryMessage[];
              has_more?: boolean;
              response_metadata?: { next_cursor?: string };
            }
          | undefined;
        if (!page) return report;
        pages += 1;
        for (const m of page.messages ?? []) {
          if (typeof m.ts !== "string") continue;
          found.set(m.ts, m);
          if ((m.reply_count ?? 0) > 0 && typeof m.latest_reply === "string") {
            const after = threads.get(m.ts) ?? oldest;
            if (Number(m.latest_reply) > Number(after)) threads.set(m.ts, after);
          }
        }
        cursor = page.response_metadata?.next_cursor || undefined;
        if (!page.has_more || !cursor) break;
        if (pages >= settings.maxPagesPerConversation) {
          report.truncated += 1;
          log?.warn(
            { channel, pages },
            "catch-up: more history in the window than catchUp.maxPagesPerConversation reads; older messages are not caught up",
          );
          break;
        }
      }
      // Replies of threads with new activity (oldest first, paged).
      for (const [root, after] of threads) {
        let replyCursor: string | undefined;
        for (let p = 0; p < settings.maxPagesPerConversation; p++) {
          const page = (await read(() =>
            client.conversations.replies({
              channel,
              ts: root,
              oldest: Number(after) > Number(oldest) ? after : oldest,
              inclusive: false,
              limit: settings.pageLimit,
              include_all_metadata: true,
              ...(replyCursor ? { cursor: replyCursor } : {}),
            }),
          )) as
            | {
                messages?: HistoryMessage[];
                has_more?: boolean;
                response_metadata?: { next_cursor?: string };
              }
            | undefined;
          if (!page) return report;
          for (const m of page.messages ?? []) {
            if (typeof m.ts === "string" && m.ts !== root) found.set(m.ts, m);
          }
          replyCursor = page.response_metadata?.next_cursor || undefined;
          if (!page.has_more || !replyCursor) break;
        }
      }
      // Oldest first, each as the Events API would have delivered it.
      const ordered = [...found.values()]
        .filter((m) => Number(m.ts) > Number(oldest))
        .sort((a, b) => Number(a.ts) - Number(b.ts));
      for (const m of ordered) {
        if (signal.aborted) return report;
        const ts = m.ts as string;
        const root =
          typeof m.thread_ts === "string" && m.thread_ts !== ts ? m.thread_ts : undefined;
        const raw = {
          type: "event_callback",
          team_id: me.teamId,
          event_id: `catchup:${channel}:${ts}`,
          event_time: Math.floor(Number(ts)),
          event: {
            ...m,
            type: "message",
            channel,
            channel_type: conversation.is_im
              ? "im"
              : conversation.is_mpim
                ? "mpim"
                : conversation.is_private
                  ? "group"
                  : "channel",
            event_ts: ts,
          },
        };
        report.delivered += 1;
        // In order: the next message of the conversation once this one is handled.
        await context.deliver(channel, raw, (p) =>
          advancePosition(p, ts, root, settings.maxThreads),
        );
      }
      context.caughtUp(channel);
    }
    if (signal.aborted) return report;
    log?.info({ ...report }, "catch-up done");
    return report;
  };

  return createCatchUpReceiver({
    sink,
    receiver: options.receiver,
    positions: { source: "history", decode: decodePosition },
    live: (raw) => liveOf(raw, settings.maxThreads),
    run,
  });
}
