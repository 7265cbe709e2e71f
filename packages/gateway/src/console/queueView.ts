/**
 * The queue inspector's HTML: counts by status, filters, the intent table (grouped like
 * `herald queue ls`), one intent in full, and the held `unknown_after_send` intents with what
 * each operator action will do. Every stored value is redacted before it is rendered.
 *
 * @module
 */
import {
  allowedOperations,
  type DurableSendIntent,
  INTENT_STATUSES,
  type IntentStatus,
  isHeldForOperator,
} from "@herald/core";
import { html } from "hono/html";
import { type QueueRow, queueRows } from "../queue/queueRows.ts";
import type { TimelineEntry } from "./attempts.ts";
import { ago, clock, csrfField, type Html, type PageContext, rawBlock } from "./layout.ts";

/** The queue filters (query parameters of `/queue`). */
export type QueueFilter = {
  status?: IntentStatus | "held";
  channel?: string;
  account?: string;
  target?: string;
  /** Only intents created at least this many minutes ago. */
  olderThanMin?: number;
};

/** The filter as query parameters (for links and the live-updating fragment). */
export function filterQuery(f: QueueFilter): string {
  const q = new URLSearchParams();
  if (f.status) q.set("status", f.status);
  if (f.channel) q.set("channel", f.channel);
  if (f.account) q.set("account", f.account);
  if (f.target) q.set("target", f.target);
  if (f.olderThanMin !== undefined) q.set("age", String(f.olderThanMin));
  const s = q.toString();
  return s ? `?${s}` : "";
}

const targetOf = (i: DurableSendIntent) =>
  `${i.message.target.id}${i.message.target.threadId ? `/${i.message.target.threadId}` : ""}`;

/** True when `intent` passes the in-memory part of the filter (account, target, age). */
export function matches(i: DurableSendIntent, f: QueueFilter, now: number): boolean {
  if (f.status === "held" && !isHeldForOperator(i)) return false;
  if (f.account && (i.accountId ?? "") !== f.account) return false;
  if (f.target && !targetOf(i).includes(f.target)) return false;
  if (f.olderThanMin !== undefined && i.createdAt > now - f.olderThanMin * 60_000) return false;
  return true;
}

/** Counts by status, each a link filtering the table. */
export function countsBar(
  ctx: PageContext,
  counts: Record<IntentStatus, number>,
  held: number,
  f: QueueFilter,
): Html {
  const { status: _current, ...rest } = f;
  const link = (status: IntentStatus | "held" | undefined, label: string, n: number) =>
    html`<a class="count ${f.status === status ? "active" : ""}" data-status="${status ?? "all"}" href="${ctx.base}/queue${filterQuery(status ? { ...rest, status } : rest)}"><b>${n}</b>${label}</a>`;
  const total = INTENT_STATUSES.reduce((n, s) => n + counts[s], 0);
  return html`<div class="counts">${link(undefined, "all", total)}${INTENT_STATUSES.map((s) =>
    link(s, s, counts[s]),
  )}${link("held", "held for operator", held)}</div>`;
}

/** The filter form. */
export function filterForm(ctx: PageContext, f: QueueFilter): Html {
  return html`<form class="filters" method="get" action="${ctx.base}/queue">
  <label>status<select name="status"><option value="">any</option>${[
    ...INTENT_STATUSES,
    "held",
  ].map(
    (s) => html`<option value="${s}" ${f.status === s ? "selected" : ""}>${s}</option>`,
  )}</select></label>
  <label>channel<input name="channel" value="${f.channel ?? ""}" size="10"></label>
  <label>account<input name="account" value="${f.account ?? ""}" size="10"></label>
  <label>target<input name="target" value="${f.target ?? ""}" size="14"></label>
  <label>older than (min)<input name="age" type="number" min="0" value="${f.olderThanMin ?? ""}" size="5"></label>
  <button type="submit">filter</button>
</form>`;
}

/** The intent table (fragment refreshed over SSE). */
export function intentTable(ctx: PageContext, intents: DurableSendIntent[], now: number): Html {
  if (intents.length === 0) return html`<p class="empty">no intents match</p>`;
  const rows: QueueRow[] = queueRows(intents);
  return html`<table class="intents"><thead><tr><th>id</th><th>status</th><th>op</th><th>channel/account</th><th>target</th><th>attempt</th><th>created</th><th>last failure</th><th>text</th></tr></thead><tbody>
${rows.map(
  ({ intent: i, member, status, op }) => html`<tr data-intent="${i.id}">
<td>${member ? "└ " : ""}<a href="${ctx.base}/queue/intents/${encodeURIComponent(i.id)}">${i.id.slice(0, 13)}</a></td>
<td class="status status-${i.status}">${status}</td><td>${op}</td>
<td>${i.channel}/${i.accountId ?? "default"}</td><td>${targetOf(i)}</td><td>${i.attempt}</td>
<td title="${new Date(i.createdAt).toISOString()}">${ago(i.createdAt, now)}</td>
<td>${i.failure ? `${i.failure.kind} × ${i.failure.evidence}${i.failure.platformCode ? ` [${i.failure.platformCode}]` : ""}` : ""}</td>
<td>${(i.message.body?.markdown ?? "").replace(/\s+/g, " ").slice(0, 60)}</td></tr>`,
)}</tbody></table>`;
}

/**
 * What Retry and Cancel do to this intent, in words (shown next to the buttons and in the
 * confirmation): one entry per action the status machine allows (`allowedOperations`).
 */
export function actionEffects(i: DurableSendIntent): { retry?: string; cancel?: string } {
  const held = isHeldForOperator(i);
  const allowed = allowedOperations(i.status);
  const effects: { retry?: string; cancel?: string } = {};
  if (allowed.includes("retry"))
    effects.retry = held
      ? "Retry sends it again now. If the first attempt did reach the platform (the outcome is unknown), the message will show twice."
      : i.status === "expired"
        ? "It was not sent: it was older than its maxAgeMs. Retry sends it now anyway (late), with no age limit."
        : "Retry puts it back in the queue, due now; the delivery worker sends it with a fresh attempt.";
  if (allowed.includes("cancel"))
    effects.cancel = held
      ? "Cancel stops it for good: nothing more is sent. If the first attempt did reach the platform, that message stays; if it did not, it is never shown."
      : i.status === "failed"
        ? "Cancel closes it for good: it is never retried and no longer counts as failed."
        : "Cancel stops it for good: it is never sent.";
  return effects;
}

/** The Retry / Cancel forms of an intent, each with a confirmation. */
export function intentActions(ctx: PageContext, i: DurableSendIntent): Html {
  const effects = actionEffects(i);
  const url = `${ctx.base}/queue/intents/${encodeURIComponent(i.id)}`;
  const form = (action: "retry" | "cancel", what: string) =>
    html`<form method="post" action="${url}/${action}" hx-post="${url}/${action}" hx-confirm="${action === "retry" ? "Retry" : "Cancel"} intent ${i.id}? ${what}">
${csrfField(ctx)}<button type="submit" class="${action === "retry" ? "primary" : "danger"}" data-action="${action}">${action === "retry" ? "Retry" : "Cancel"}</button><span class="what">${what}</span></form>`;
  if (!effects.retry && !effects.cancel)
    return html`<p class="muted">No operator action: status ${i.status}.</p>`;
  return html`<div class="actions">${effects.retry ? form("retry", effects.retry) : ""}${effects.cancel ? form("cancel", effects.cancel) : ""}</div>`;
}

/** The evidence that made an intent `unknown_after_send`. */
export function evidence(i: DurableSendIntent): Html {
  const f = i.failure;
  if (!f) return html`<p class="muted">no failure recorded</p>`;
  return html`<dl class="evidence"><dt>kind × evidence</dt><dd><code>${f.kind} × ${f.evidence}</code></dd>
<dt>message</dt><dd>${f.platformCode ? html`<code>[${f.platformCode}]</code> ` : ""}${f.message}</dd>
${f.inDoubtSince !== undefined ? html`<dt>in doubt since</dt><dd>${clock(f.inDoubtSince)}</dd>` : ""}
${f.unresolvedChecks ? html`<dt>unresolved reconcile checks</dt><dd>${f.unresolvedChecks}</dd>` : ""}
<dt>attempts</dt><dd>${i.attempt}</dd></dl>`;
}

/** The attempt timeline. */
export function timeline(entries: TimelineEntry[]): Html {
  return html`<ol class="timeline">${entries.map(
    (e) =>
      html`<li class="${e.what}">${clock(e.at)} <b>${e.what}</b>${e.attempt !== undefined ? ` #${e.attempt}` : ""}${e.kind ? html` <code>${e.kind} × ${e.evidence ?? "?"}</code>` : ""} ${e.detail ?? ""}${e.observed ? html` <span class="muted">(seen by this gateway)</span>` : ""}</li>`,
  )}</ol>`;
}

/** One intent in full: summary, evidence, timeline, receipts, live state, actions, raw JSON. */
export function intentDetail(
  ctx: PageContext,
  i: DurableSendIntent,
  display: { status: string; op: string; json: string; timeline: TimelineEntry[] },
): Html {
  const receipt = i.receipt ?? i.partialReceipt;
  return html`<h1>Intent <code>${i.id}</code></h1>
<div class="card"><dl class="summary">
<dt>status</dt><dd class="status status-${i.status}" id="intent-status">${display.status}</dd>
<dt>operation</dt><dd>${display.op}</dd>
<dt>channel / account</dt><dd>${i.channel} / ${i.accountId ?? "default"}</dd>
<dt>target</dt><dd>${targetOf(i)}</dd>
<dt>idempotency key</dt><dd><code>${i.idempotencyKey}</code></dd>
${i.turnId ? html`<dt>turn</dt><dd><code>${i.turnId}</code></dd>` : ""}
<dt>text</dt><dd>${i.message.body?.markdown ?? ""}</dd></dl></div>
<h2>Actions</h2>${intentActions(ctx, i)}
${i.failure ? html`<h2>Evidence</h2>${evidence(i)}` : ""}
<h2>Attempts</h2>${timeline(display.timeline)}
<h2>Receipts</h2>${
    receipt
      ? html`<table><thead><tr><th>unit</th><th>platform message id</th></tr></thead><tbody>${receipt.parts.map(
          (p) => html`<tr><td>${p.index}</td><td><code>${p.platformMessageId}</code></td></tr>`,
        )}</tbody></table>${i.partialReceipt && !i.receipt ? html`<p class="muted">partial: these units landed before the whole batch did</p>` : ""}`
      : html`<p class="muted">no receipt yet</p>`
  }
${i.liveState ? html`<h2>Live state</h2><pre>${JSON.stringify(i.liveState, null, 2)}</pre>` : ""}
<h2>Stored intent</h2>${rawBlock(display.json, `herald queue show ${i.id} prints it`)}`;
}

/** The held intents, each with its evidence and its two actions. */
export function heldList(ctx: PageContext, held: DurableSendIntent[]): Html {
  if (held.length === 0)
    return html`<p class="empty">No send is held: every unknown outcome was resolved by idempotency keys or reconciliation.</p>`;
  return html`${held.map(
    (i) => html`<section class="card held" data-intent="${i.id}">
<h2><a href="${ctx.base}/queue/intents/${encodeURIComponent(i.id)}">${i.id}</a> · ${i.channel}/${i.accountId ?? "default"} → ${targetOf(i)}</h2>
<p>${i.message.body?.markdown ?? ""}</p>${evidence(i)}${intentActions(ctx, i)}</section>`,
  )}`;
}
