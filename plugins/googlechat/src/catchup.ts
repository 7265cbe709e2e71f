/**
 * Inbound catch-up (CASES C54): what people wrote while the gateway was down. Chat posts an
 * interaction event to the app's endpoint and retries only briefly; what arrived while the
 * endpoint was down is gone from the event stream. So at every receiver start herald lists, for
 * each space the app is in (`spaces.list`), `spaces.messages.list` with
 * `filter: createTime > "<the last message it saw there>"`, oldest first, and hands each message
 * to the sink as the MESSAGE event Chat would have posted — the same identity (the message
 * name), so one Chat also redelivered is handled once.
 *
 * In spaces only messages that mention an app (or run a slash command) are handed over, as the
 * HTTP events would have brought them (`catchUp.spaces: "all"` hands over every one); in direct
 * messages every message. The app's own messages are the sink's to drop (the outbound registry
 * knows them; `appUser` names them too).
 *
 * Positions are durable per space (source `history:<space>`, the newest `createTime` seen) and
 * follow live events once the space was caught up; a space without one is read from the
 * account's first start, never more than `catchUp.maxAgeMs` back. Lists are paced at one per
 * `catchUp.readIntervalMs`.
 *
 * With app authentication `spaces.messages.list` needs the `chat.app.messages.readonly` scope,
 * which an administrator approves; a refusal is logged and the live endpoint goes on.
 *
 * Sources: developers.google.com/workspace/chat/api/reference/rest/v1/spaces.messages/list
 * (`filter`, `orderBy`), …/spaces/list.
 *
 * @module
 */
import {
  type CatchUpReceiver,
  type CatchUpRunContext,
  type ChannelReceiver,
  type ChannelReceiverSink,
  createCatchUpReceiver,
  sleep,
} from "@herald/plugin-sdk/channel-message";
import type { ChatApi, ChatMessage } from "./client.ts";
import type { GoogleChatConfig } from "./config.ts";

/** A space's catch-up position: the newest `createTime` seen (RFC 3339). */
export type GoogleChatPosition = { createTime: string };

/** What one catch-up run did. */
export type GoogleChatCatchUpReport = {
  spaces: number;
  /** `spaces.messages.list` calls made. */
  reads: number;
  /** Messages handed to the sink. */
  delivered: number;
  /** Spaces with more in the window than `maxPagesPerSpace` pages (logged). */
  truncated: number;
};

/** Options of {@link createGoogleChatCatchUpReceiver}. */
export type GoogleChatCatchUpOptions = {
  api: Pick<ChatApi, "listSpaces" | "listMessages">;
  sink: ChannelReceiverSink;
  /** Builds the live receiver (the HTTP endpoint) over the sink it delivers into. */
  receiver(sink: ChannelReceiverSink): ChannelReceiver;
  config: Pick<GoogleChatConfig, "catchUp" | "appUser">;
  /** Epoch-ms clock. @defaultValue Date.now */
  clock?: () => number;
};

const later = (a: string | undefined, b: string): string =>
  a !== undefined && Date.parse(a) >= Date.parse(b) ? a : b;

function decodePosition(text: string): GoogleChatPosition | undefined {
  try {
    const v = JSON.parse(text) as GoogleChatPosition;
    return typeof v?.createTime === "string" && Number.isFinite(Date.parse(v.createTime))
      ? v
      : undefined;
  } catch {
    return undefined;
  }
}

/** A live MESSAGE event's space and createTime, when it is one. */
function liveMessage(raw: unknown): { space: string; createTime: string } | undefined {
  const e = raw as {
    type?: unknown;
    space?: { name?: unknown };
    message?: { createTime?: unknown; space?: { name?: unknown } };
  } | null;
  if (e?.type !== "MESSAGE") return undefined;
  const space = e.message?.space?.name ?? e.space?.name;
  const at = e.message?.createTime;
  if (typeof space !== "string" || typeof at !== "string" || !Number.isFinite(Date.parse(at)))
    return undefined;
  return { space, createTime: at };
}

/** Whether a listed message would have reached the app as an HTTP event in a space. */
function addressesApp(m: ChatMessage, appUser: string | undefined): boolean {
  if (m.slashCommand) return true;
  return (m.annotations ?? []).some((a) => {
    const user = a.userMention?.user;
    if (a.type !== "USER_MENTION" || !user) return false;
    return appUser ? user.name === appUser || user.name === "users/app" : user.type === "BOT";
  });
}

/**
 * Wraps the live endpoint of one account with catch-up (see the module notes): at each start it
 * reads what was missed; live messages keep their space's order behind it.
 */
export function createGoogleChatCatchUpReceiver(
  options: GoogleChatCatchUpOptions,
): CatchUpReceiver<GoogleChatCatchUpReport> {
  const { api, sink, config } = options;
  const settings = config.catchUp;
  const clock = options.clock ?? Date.now;
  const log = sink.logger?.child({ catchUp: "googlechat" });

  const run = async (
    context: CatchUpRunContext<GoogleChatPosition>,
  ): Promise<GoogleChatCatchUpReport> => {
    const { positions, signal } = context;
    const report: GoogleChatCatchUpReport = { spaces: 0, reads: 0, delivered: 0, truncated: 0 };
    const since = await positions.firstStart(clock());
    let nextReadAt = 0;
    const paced = async () => {
      const wait = nextReadAt - clock();
      if (wait > 0) await sleep(wait, signal);
      nextReadAt = clock() + settings.readIntervalMs;
      report.reads += 1;
    };
    const spaces: Array<{ name: string; direct: boolean; json: unknown }> = [];
    let token: string | undefined;
    do {
      const page = await api.listSpaces(token, signal);
      for (const s of page.spaces ?? []) {
        if (!s.name) continue;
        const direct = s.spaceType === "DIRECT_MESSAGE" || s.type === "DM" || s.singleUserBotDm;
        spaces.push({ name: s.name, direct: direct === true, json: s });
      }
      token = page.nextPageToken || undefined;
    } while (token && !signal.aborted);

    for (const space of spaces) {
      if (signal.aborted) return report;
      report.spaces += 1;
      const floor = clock() - settings.maxAgeMs;
      const position = await positions.get(space.name);
      let after = position?.createTime ?? new Date(Math.max(since, floor)).toISOString();
      if (Date.parse(after) < floor) {
        log?.warn(
          { space: space.name, since: after },
          "catch-up: the gap is older than catchUp.maxAgeMs; reading from there",
        );
        after = new Date(floor).toISOString();
      }
      let pageToken: string | undefined;
      for (let page = 0; ; page++) {
        if (page >= settings.maxPagesPerSpace) {
          report.truncated += 1;
          log?.warn(
            { space: space.name, pages: page },
            "catch-up: more messages than catchUp.maxPagesPerSpace pages; the rest waits for the next start",
          );
          break;
        }
        await paced();
        if (signal.aborted) return report;
        const answer = await api.listMessages(
          space.name,
          { filter: `createTime > "${after}"`, pageSize: settings.pageSize, pageToken },
          signal,
        );
        for (const m of answer.messages ?? []) {
          if (!m.name || !m.createTime) continue;
          const createTime = m.createTime;
          const next = (p: GoogleChatPosition | undefined) => ({
            createTime: later(p?.createTime, createTime),
          });
          if (!space.direct && settings.spaces === "mentions" && !addressesApp(m, config.appUser)) {
            // Not for the app (HTTP would not have brought it): only the position moves past it.
            await positions.advance(space.name, next, Promise.resolve({ kind: "accept" }));
            continue;
          }
          report.delivered += 1;
          await context.deliver(
            space.name,
            {
              type: "MESSAGE",
              eventTime: createTime,
              space: space.json,
              message: m,
              ...(m.sender ? { user: m.sender } : {}),
              common: {},
            },
            next,
          );
        }
        pageToken = answer.nextPageToken || undefined;
        if (!pageToken) break;
      }
      context.caughtUp(space.name);
    }
    log?.info({ ...report }, "catch-up done");
    return report;
  };

  return createCatchUpReceiver({
    sink,
    receiver: options.receiver,
    positions: { source: "history", decode: decodePosition },
    live: (raw) => {
      const m = liveMessage(raw);
      return m
        ? {
            conversation: m.space,
            next: (p) => ({ createTime: later(p?.createTime, m.createTime) }),
          }
        : undefined;
    },
    run,
  });
}
