/**
 * Reconciling a send whose outcome is unknown (DESIGN §3 "Replay gate"). `chat.postMessage`
 * has no idempotency key, but every unit herald posts carries its mark in `metadata` (the
 * hashed intent key and the unit index, `origin.ts`): the reconciler reads the target
 * conversation (`conversations.history`, newest first) or thread (`conversations.replies`,
 * oldest first) with `include_all_metadata` and looks for the missing units' marks.
 *
 * What it can prove ("complete" within what it reads):
 * - **sent**: a message of this bot with the unit's mark exists — always sound;
 * - **not sent**: the whole span where the unit could be was read without finding it. The span
 *   starts at this process's first dispatch of the unit (less a clock margin) when it knows
 *   it; after a restart it reaches back to a **fence** — an earlier unit of the same intent
 *   (sent before the lost ones, in history) — or to the start of the conversation / thread.
 * - **unresolved** otherwise: the workspace's read budget (about one read a minute, 15
 *   messages a page for apps outside the Marketplace, `budget.ts`) ran out before the span was
 *   read, or a read failed. Core checks again later, then applies `unknownSendPolicy`.
 *
 * Sources: https://docs.slack.dev/reference/methods/conversations.history,
 * https://docs.slack.dev/reference/methods/conversations.replies
 *
 * @module
 */
import {
  type MessageReceiptPart,
  type MessageSendContext,
  type ReconcileResult,
  type RenderedMessageUnit,
  sleep,
} from "@herald/plugin-sdk/channel-message";
import type { WebClient } from "@slack/web-api";
import { workspaceBudget } from "./budget.ts";
import { SLACK_HISTORY_PAGE_LIMIT, type SlackConfig } from "./config.ts";
import { classifyError } from "./errors.ts";
import type { IdentityCell } from "./identity.ts";
import { intentMark, unitMarkOf } from "./origin.ts";
import type { DispatchLog } from "./send.ts";
import { partOf } from "./send.ts";
import { placementOf } from "./target.ts";

/** Clock difference allowed between this host and Slack when bounding a read by time, in ms. */
const CLOCK_MARGIN_MS = 60_000;

/** What the reconciler needs. */
export type ReconcileDeps = {
  client: WebClient;
  identity: IdentityCell;
  dispatches: DispatchLog;
  config: Pick<SlackConfig, "replyInThread" | "replyBroadcast" | "reconcile" | "slackApiUrl">;
  secrets: readonly string[];
};

type HistoryMessage = { ts?: string; user?: string; bot_id?: string; metadata?: unknown };

/** Slack's `ts` of an epoch-ms instant. */
function tsOf(ms: number): string {
  return (Math.max(0, ms) / 1_000).toFixed(6);
}

/** `reconcileUnknownSend` by metadata (see the module notes). */
export function createReconcile(deps: ReconcileDeps) {
  const { client, identity, dispatches, config, secrets } = deps;
  const limits = config.reconcile;
  return async (
    ctx: MessageSendContext,
    units: readonly RenderedMessageUnit[],
  ): Promise<ReconcileResult> => {
    if (units.length === 0) return { status: "sent", parts: [] };
    const first = [...units].sort((a, b) => a.index - b.index)[0];
    if ((first?.payload as { type?: string } | undefined)?.type === "file") {
      // A shared file carries no metadata: its share cannot be looked up.
      return { status: "unresolved", reason: "a file share carries no metadata to look up" };
    }
    let me: Awaited<ReturnType<IdentityCell["get"]>>;
    try {
      me = await identity.get();
    } catch (error) {
      return {
        status: "unresolved",
        reason: `auth.test: ${classifyError(error, secrets).message}`,
      };
    }
    const budget = workspaceBudget(config.slackApiUrl, me.teamId, limits.historyIntervalMs);
    const place = placementOf(ctx.message, config);
    const mark = intentMark(ctx.accountId, ctx.idempotencyKey);
    const wanted = new Map(units.map((u) => [u.index, u]));
    const firstIndex = Math.min(...wanted.keys());
    const since = dispatches.firstDispatchAt(ctx.accountId, ctx.idempotencyKey, firstIndex);
    const oldest = since !== undefined ? tsOf(since - CLOCK_MARGIN_MS) : undefined;
    const found = new Map<number, MessageReceiptPart>();
    let cursor: string | undefined;
    let complete = false;
    for (let page = 0; page < limits.maxPagesPerCheck && !complete; page++) {
      const wait = budget.reserve(limits.maxBudgetWaitMs);
      if (wait === undefined) {
        return { status: "unresolved", reason: "the workspace's history read budget is spent" };
      }
      if (wait > 0) await sleep(wait, ctx.signal);
      if (ctx.signal.aborted) return { status: "unresolved", reason: "aborted" };
      let answer: {
        messages?: HistoryMessage[];
        has_more?: boolean;
        response_metadata?: { next_cursor?: string };
      };
      try {
        const common = {
          channel: place.channel,
          limit: SLACK_HISTORY_PAGE_LIMIT,
          include_all_metadata: true,
          ...(oldest ? { oldest } : {}),
          ...(cursor ? { cursor } : {}),
        };
        answer = place.threadTs
          ? await client.conversations.replies({ ...common, ts: place.threadTs })
          : await client.conversations.history(common);
      } catch (error) {
        const failure = classifyError(error, secrets);
        if (failure.kind === "rate_limit") budget.pause(failure.retryAfterMs ?? 60_000);
        return { status: "unresolved", reason: `history read failed: ${failure.message}` };
      }
      let fence = false;
      for (const m of answer.messages ?? []) {
        if (m.bot_id !== me.botId && m.user !== me.userId) continue;
        const unit = unitMarkOf(m);
        if (!unit || unit.intent !== mark || typeof m.ts !== "string") continue;
        const wantedUnit = wanted.get(unit.unit);
        if (wantedUnit)
          found.set(unit.unit, partOf(place.channel, m.ts, wantedUnit, place.threadTs));
        // History is newest first: an earlier unit of this intent predates every missing one.
        else if (!place.threadTs && unit.unit < firstIndex) fence = true;
      }
      const next = answer.response_metadata?.next_cursor;
      // Read to the end only when Slack says so: more history without a cursor stays unread.
      complete = found.size === wanted.size || fence || answer.has_more !== true;
      if (!complete && !next) break;
      cursor = next;
    }
    // Units land in order. Unread pages may still hold a missing unit when reading stopped
    // early: replies (oldest first) a later one, history (newest first) an earlier one.
    const foundMax = Math.max(-1, ...found.keys());
    const missing = [...wanted.keys()].filter((i) => !found.has(i));
    const settled = complete || (!place.threadTs && missing.every((i) => i > foundMax));
    if (found.size > 0 && settled) {
      return { status: "sent", parts: [...found.values()].sort((a, b) => a.index - b.index) };
    }
    if (complete) return { status: "not_sent" };
    return {
      status: "unresolved",
      reason: `not found in ${limits.maxPagesPerCheck} page(s) of ${SLACK_HISTORY_PAGE_LIMIT} messages; more history to read`,
    };
  };
}
