/**
 * The conversation view's routes: `/conversations` (the conversations this gateway knows of),
 * `/conversations/view?c=<name>&to=<seq>&size=<n>` (one raw event window, newest by default),
 * `POST /conversations/fork` (branch at a message: the ledger's completed-turn fork) and
 * `POST /conversations/fork-latest` (the session-level action: fork the latest completed turn).
 * A fork navigates to the new conversation; a refused fork (`ForkUnavailableError`) comes back
 * as a clear message on the view.
 *
 * @module
 */
import {
  conversationOf,
  ForkUnavailableError,
  type ForkUnavailableReason,
  type MessageStateStore,
  TURN_EVENT,
} from "@herald/core";
import type { Context, Hono } from "hono";
import { html } from "hono/html";
import { redacted } from "../queue/operations.ts";
import { signedNotice, verifiedNotice } from "./auth.ts";
import { pager, transcript } from "./conversationView.ts";
import type { ConsoleDeps } from "./deps.ts";
import { csrfField, notice, type PageContext, page } from "./layout.ts";
import { queryPositive } from "./query.ts";
import { redirect } from "./queueRoutes.ts";

/** Default events per page. */
export const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1_000;

/**
 * The last seq of a conversation (0 when empty): seqs are contiguous from 1, so an exponential
 * probe and a binary search find it in O(log n) one-event reads.
 */
export async function lastSeq(store: MessageStateStore, conversation: string): Promise<number> {
  const exists = async (seq: number) =>
    (await store.readLedger({ conversation, fromSeq: seq, toSeq: seq, limit: 1 })).length > 0;
  if (!(await exists(1))) return 0;
  let lo = 1;
  let hi = 2;
  while (await exists(hi)) {
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (await exists(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** The seq of the latest `turn/end` at or before `toSeq`, reading backwards in pages. */
async function latestTurnEnd(
  store: MessageStateStore,
  conversation: string,
  toSeq: number,
): Promise<number | undefined> {
  for (let to = toSeq; to >= 1; to -= 500) {
    const events = await store.readLedger({
      conversation,
      fromSeq: Math.max(1, to - 499),
      toSeq: to,
      limit: 500,
    });
    const end = events.findLast((e) => e.type === TURN_EVENT.end);
    if (end) return end.seq;
  }
  return undefined;
}

/** Most conversation names the console remembers from this process (the oldest go first). */
const MAX_KNOWN = 1_000;

/** Adds a name to the remembered conversations, bounded by {@link MAX_KNOWN}. */
export function remember(known: Set<string>, name: string): void {
  known.delete(name);
  known.add(name);
  if (known.size > MAX_KNOWN) {
    const oldest = known.values().next().value;
    if (oldest !== undefined) known.delete(oldest);
  }
}

const REASONS: readonly ForkUnavailableReason[] = ["open_turn", "no_such_event", "outside_turn"];

/** Registers the conversation routes; `known` collects conversation names seen. */
export function registerConversationRoutes(
  app: Hono,
  deps: ConsoleDeps,
  ctxOf: (c: Context) => PageContext,
  known: Set<string>,
): void {
  const viewUrl = (ctx: PageContext, conversation: string, extra: Record<string, string> = {}) =>
    `${ctx.base}/conversations/view?${new URLSearchParams({ c: conversation, ...extra })}`;

  app.get("/conversations", async (c) => {
    const ctx = ctxOf(c);
    const recent = await deps.store.listIntents({ limit: 500 });
    const names = new Set(known);
    for (const i of recent) if (i.message.target) names.add(conversationOf(i.message));
    const sorted = [...names].sort();
    const body = html`<h1>Conversations</h1>
<form class="filters" method="get" action="${ctx.base}/conversations/view"><label>conversation<input name="c" size="48" placeholder="chat/&lt;channel&gt;/&lt;account&gt;/&lt;chat id&gt;"></label><button type="submit">open</button></form>
${
  sorted.length === 0
    ? html`<p class="empty">No conversation yet: this gateway has seen no turn and the queue has no message.</p>`
    : html`<table class="conversations"><tbody>${sorted.map(
        (n) =>
          html`<tr data-conversation="${n}"><td><a href="${viewUrl(ctx, n)}">${n}</a></td><td><form method="post" action="${ctx.base}/conversations/fork-latest" hx-post="${ctx.base}/conversations/fork-latest">${csrfField(ctx)}<input type="hidden" name="c" value="${n}"><button type="submit" data-action="fork-latest" title="A new conversation with everything through the latest turn/end">Fork latest completed turn</button></form></td></tr>`,
      )}</tbody></table>`
}
<p class="muted">Listed: conversations of recent queue messages and those this gateway saw a turn in or forked.</p>`;
    return c.html(page(ctx, "Conversations", body, "conversations"));
  });

  const windowBody = async (c: Context, ctx: PageContext, conversation: string) => {
    const size =
      queryPositive(c, "size", { integer: true, max: MAX_PAGE_SIZE }) ?? DEFAULT_PAGE_SIZE;
    const asked = queryPositive(c, "to", { integer: true });
    const last = await lastSeq(deps.store, conversation);
    const to = Math.min(last, asked ?? last);
    const from = Math.max(1, to - size + 1);
    const snapshot =
      last === 0
        ? undefined
        : await deps.runtime.ledger.snapshot({
            conversation,
            window: { fromSeq: from, toSeq: to, limit: size },
          });
    if (!snapshot)
      return { html: html`<p class="empty">This conversation has no events.</p>`, latest: true };
    // Eligibility comes from the ledger (on the stored snapshot); only then is text redacted.
    const targets = deps.runtime.ledger.branchEligibility(snapshot);
    const shown = { ...snapshot, nodes: redacted(snapshot.nodes, deps.redact) };
    return {
      html: html`${pager(ctx, conversation, { fromSeq: from, toSeq: to, lastSeq: last, size })}${transcript(ctx, shown, targets)}`,
      latest: to === last,
    };
  };

  app.get("/conversations/view", async (c) => {
    const ctx = ctxOf(c);
    const conversation = c.req.query("c")?.trim();
    if (!conversation)
      return c.html(
        page(
          ctx,
          "Conversation",
          notice("error", "Name a conversation: ?c=<name>"),
          "conversations",
        ),
        400,
      );
    remember(known, conversation);
    const [first] = await deps.store.readLedger({ conversation, fromSeq: 1, toSeq: 1, limit: 1 });
    const origin =
      first?.type === TURN_EVENT.forkOrigin
        ? (first.data as { from: string; throughSeq: number; turnId: string })
        : undefined;
    // Only a refusal this console signed: a crafted link cannot put text on the page.
    const forkNotice = verifiedNotice(c, deps.token, ["forkError", "at", "turn"]);
    const reason = forkNotice?.forkError;
    const refused =
      reason && (REASONS as readonly string[]).includes(reason)
        ? new ForkUnavailableError(
            conversation,
            Number(forkNotice?.at) || 0,
            reason as ForkUnavailableReason,
            forkNotice?.turn,
          )
        : undefined;
    const noCompleted = c.req.query("noCompleted") !== undefined;
    const window = await windowBody(c, ctx, conversation);
    const live = window.latest
      ? html`hx-get="${ctx.base}/conversations/window?${new URLSearchParams({ c: conversation, size: c.req.query("size") ?? String(DEFAULT_PAGE_SIZE) })}" hx-trigger="sse:ledger" hx-swap="innerHTML"`
      : "";
    const forkLatest = `${ctx.base}/conversations/fork-latest`;
    const body = html`<h1>Conversation <code>${conversation}</code></h1>
${refused ? notice("error", "Cannot branch there.", refused.message) : ""}
${noCompleted ? notice("error", "Nothing to fork yet.", "This conversation has no completed turn (no turn/end): fork needs a turn that has ended.") : ""}
${origin ? notice("info", `Forked from ${origin.from}`, `a copy through turn ${origin.turnId.slice(0, 8)}'s turn/end (seq ${origin.throughSeq} there)`) : ""}
<div class="actions"><form method="post" action="${forkLatest}" hx-post="${forkLatest}">${csrfField(ctx)}<input type="hidden" name="c" value="${conversation}"><button type="submit" data-action="fork-latest">Fork latest completed turn</button><span class="what">A new conversation with everything through the latest turn/end.</span></form>
${origin ? html`<a href="${viewUrl(ctx, origin.from)}">open the original</a>` : ""}</div>
<section id="window" ${live}>${window.html}</section>`;
    return c.html(page(ctx, conversation, body, "conversations", { sse: true }));
  });

  app.get("/conversations/window", async (c) => {
    const conversation = c.req.query("c")?.trim();
    if (!conversation) return c.text("name a conversation", 400);
    return c.html((await windowBody(c, ctxOf(c), conversation)).html);
  });

  const fork = async (c: Context, conversation: string, atSeq: number) => {
    const ctx = ctxOf(c);
    try {
      const result = await deps.runtime.ledger.fork({ conversation, atSeq });
      remember(known, result.conversation);
      deps.logger.info(
        { conversation, atSeq, into: result.conversation, throughSeq: result.throughSeq },
        "console fork",
      );
      return redirect(c, viewUrl(ctx, result.conversation));
    } catch (error) {
      if (!(error instanceof ForkUnavailableError)) throw error;
      return redirect(
        c,
        viewUrl(
          ctx,
          conversation,
          signedNotice(deps.token, {
            forkError: error.reason,
            at: String(error.atSeq),
            ...(error.turnId ? { turn: error.turnId } : {}),
          }),
        ),
      );
    }
  };

  app.post("/conversations/fork", async (c) => {
    const form = await c.req.parseBody();
    const conversation = typeof form.c === "string" ? form.c : "";
    const atSeq = Number(form.atSeq);
    if (!conversation || !Number.isInteger(atSeq) || atSeq < 1)
      return c.text("fork needs c (a conversation) and atSeq (a positive integer)", 400);
    return fork(c, conversation, atSeq);
  });

  app.post("/conversations/fork-latest", async (c) => {
    const form = await c.req.parseBody();
    const conversation = typeof form.c === "string" ? form.c : "";
    if (!conversation) return c.text("fork-latest needs c (a conversation)", 400);
    const end = await latestTurnEnd(
      deps.store,
      conversation,
      await lastSeq(deps.store, conversation),
    );
    if (end === undefined)
      return redirect(c, viewUrl(ctxOf(c), conversation, { noCompleted: "1" }));
    return fork(c, conversation, end);
  });
}
