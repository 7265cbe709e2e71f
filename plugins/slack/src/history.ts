/**
 * History on Slack ([H23]; PLATFORMS.md §10): `history.list` reads `conversations.history` (a
 * conversation, top-level messages and broadcasts) or `conversations.replies` (a thread, its root
 * first), at most {@link SLACK_HISTORY_PAGE_LIMIT} per call (Slack's limit for apps outside the
 * Marketplace), older than `before` when paging. Messages are normalized like inbound ones
 * (`receive.ts`), oldest first; the bot's own are `direction: "outbound"`.
 *
 * Sources: https://docs.slack.dev/reference/methods/conversations.history,
 * https://docs.slack.dev/reference/methods/conversations.replies
 *
 * @module
 */
import type {
  ChannelMessage,
  HistoryQuery,
  MessageHistoryAdapter,
} from "@herald/plugin-sdk/channel-message";
import type { WebClient } from "@slack/web-api";
import { SLACK_HISTORY_PAGE_LIMIT } from "./config.ts";
import type { SlackMessageObject } from "./events.ts";
import type { IdentityCell } from "./identity.ts";
import { messageOf } from "./receive.ts";
import { channelOf, parseMessageRef } from "./target.ts";

/** The adapter's `history` (see the module notes). */
export function createHistory(client: WebClient, identity: IdentityCell): MessageHistoryAdapter {
  return {
    async list(ctx, query: HistoryQuery): Promise<ChannelMessage[]> {
      const me = await identity.get();
      const channel = channelOf(query.target);
      const limit = Math.max(1, Math.min(query.limit, SLACK_HISTORY_PAGE_LIMIT));
      const latest = query.before ? parseMessageRef(query.before, channel).ts : undefined;
      const window = latest ? { latest, inclusive: false } : {};
      const thread = query.threadId ?? query.target.threadId;
      const answer = thread
        ? await client.conversations.replies({ channel, ts: thread, limit, ...window })
        : await client.conversations.history({ channel, limit, ...window });
      const raw = (answer.messages ?? []) as SlackMessageObject[];
      const ordered = thread ? raw.slice(-limit) : [...raw].reverse();
      return ordered.map((m) => {
        const message = messageOf(
          me.teamId,
          channel,
          undefined,
          m,
          me,
          m,
          ctx.accountId,
          "message",
        );
        return message.sender?.isSelf ? { ...message, direction: "outbound" } : message;
      });
    },
  };
}
