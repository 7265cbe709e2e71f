/**
 * The conversation view's HTML (seed `completed-turn-boundaries.md`, DESIGN §7): one window of
 * a conversation's ledger, turn by turn — user and assistant messages, tool calls and results,
 * reasoning, errors, and the turn boundaries. Every message has copy and clock; **branch only
 * on the targets `branchEligibility` returns** (the tail node of a completed turn when it is a
 * user message or a content-bearing assistant message). The view never decides eligibility
 * itself: completion comes only from the durable `turn/end` in the snapshot.
 *
 * @module
 */
import type {
  BranchTarget,
  ConversationSnapshot,
  TranscriptNode,
  TurnEndMark,
  TurnMessage,
  TurnStartMark,
} from "@herald/core";
import { html } from "hono/html";
import { clock, csrfField, type Html, type PageContext } from "./layout.ts";

/** The label and the copyable text of a transcript node. */
export function nodeText(m: TurnMessage): { who: string; text: string } {
  switch (m.role) {
    case "user":
      return { who: "user", text: m.text };
    case "assistant":
      return { who: m.interrupted ? "assistant (interrupted)" : "assistant", text: m.text };
    case "reasoning":
      return { who: m.interrupted ? "reasoning (interrupted)" : "reasoning", text: m.text };
    case "tool":
      return {
        who: m.content === undefined ? "tool call" : m.isError ? "tool error" : "tool result",
        text: `${m.name}${m.input ? ` ${m.input}` : ""}${m.content === undefined ? "" : `\n${m.content}`}`,
      };
    case "subagent":
      return {
        who: "subagent",
        text: `${m.name} ${m.status}${m.durationMs !== undefined ? ` (${m.durationMs} ms)` : ""}`,
      };
    case "system":
      return { who: `system · ${m.event}`, text: m.text };
    case "policy-request":
      return { who: "policy request", text: m.text };
    case "command":
      return { who: "command", text: `$ ${m.command}${m.output ? `\n${m.output}` : ""}` };
    case "log":
      return { who: "log", text: m.text };
    case "error":
      return { who: "error", text: m.text };
  }
}

/** One turn as it appears in the window. */
type TurnBlock = {
  turnId: string;
  start?: TurnStartMark;
  nodes: TranscriptNode[];
  end?: TurnEndMark;
};

/** Groups a snapshot's nodes and boundaries by turn, in order of first appearance. */
export function turnsOf(snapshot: ConversationSnapshot): TurnBlock[] {
  const blocks = new Map<string, TurnBlock & { first: number }>();
  const block = (turnId: string, seq: number) => {
    let b = blocks.get(turnId);
    if (!b) {
      b = { turnId, nodes: [], first: seq };
      blocks.set(turnId, b);
    }
    b.first = Math.min(b.first, seq);
    return b;
  };
  for (const s of snapshot.turnStarts) block(s.turnId, s.seq).start = s;
  for (const n of snapshot.nodes) block(n.turnId, n.seq).nodes.push(n);
  for (const e of snapshot.turnEnds) block(e.turnId, e.seq).end = e;
  return [...blocks.values()]
    .sort((a, b) => a.first - b.first)
    .map(({ first: _first, ...b }) => ({ ...b, nodes: b.nodes.sort((x, y) => x.seq - y.seq) }));
}

function nodeView(
  ctx: PageContext,
  conversation: string,
  node: TranscriptNode,
  target: BranchTarget | undefined,
): Html {
  const { who, text } = nodeText(node.message);
  const forkUrl = `${ctx.base}/conversations/fork`;
  return html`<article class="node role-${node.message.role}" data-seq="${node.seq}" data-role="${node.message.role}" data-branch="${target ? "yes" : "no"}" data-copy-source>
<div class="who">${who}</div>
<div class="text">${text}</div>
<div class="chrome">${clock(node.at)}<button type="button" data-copy title="copy this message">copy</button>${
    target
      ? html`<form method="post" action="${forkUrl}" hx-post="${forkUrl}">${csrfField(ctx)}<input type="hidden" name="c" value="${conversation}"><input type="hidden" name="atSeq" value="${target.seq}"><button type="submit" data-action="branch" title="Branch: a new conversation with everything through this turn's end (seq ${target.endSeq})">branch</button></form>`
      : ""
  }<span class="muted">#${node.seq}</span></div>
</article>`;
}

/**
 * Nodes of a turn recorded after its `turn/end` (a late activity): drawn below the end line so
 * they never look like the tail the branch belongs to; they offer no branch themselves.
 */
function lateNodes(ctx: PageContext, conversation: string, t: TurnBlock): Html | string {
  const end = t.end;
  if (!end) return "";
  const late = t.nodes.filter((n) => n.seq > end.seq);
  if (late.length === 0) return "";
  return html`<div class="late"><p class="muted">recorded after this turn's turn/end (not part of what a branch copies):</p>${late.map((n) => nodeView(ctx, conversation, n, undefined))}</div>`;
}

/** The transcript of one window: turns with their boundaries and nodes. */
export function transcript(
  ctx: PageContext,
  snapshot: ConversationSnapshot,
  targets: readonly BranchTarget[],
): Html {
  const bySeq = new Map(targets.map((t) => [t.seq, t]));
  const turns = turnsOf(snapshot);
  if (turns.length === 0) return html`<p class="empty">no turn events in this window</p>`;
  return html`<div class="transcript">${turns.map(
    (
      t,
    ) => html`<section class="turn ${t.end ? "completed" : "open"}" data-turn="${t.turnId}" data-state="${t.end ? "completed" : "open"}">
<div class="boundary start">${
      t.start
        ? html`${clock(t.start.at)} turn/start <code>${t.turnId.slice(0, 8)}</code> <span class="muted">#${t.start.seq}</span>`
        : html`<span>turn <code>${t.turnId.slice(0, 8)}</code> began before this window</span>`
    }</div>
${t.nodes
  .filter((n) => !t.end || n.seq < t.end.seq)
  .map((n) => nodeView(ctx, snapshot.conversation, n, bySeq.get(n.seq)))}
<div class="boundary end" data-end-seq="${t.end?.seq ?? ""}">${
      t.end
        ? html`${clock(t.end.at)} turn/end <span class="outcome outcome-${t.end.outcome}">${t.end.outcome}</span> <span class="muted">#${t.end.seq}</span>`
        : html`<span class="outcome">open</span> <span class="muted">no turn/end in this window: nothing in this turn can be branched</span>`
    }</div>
${lateNodes(ctx, snapshot.conversation, t)}</section>`,
  )}</div>`;
}

/** The pager over the raw event window. */
export function pager(
  ctx: PageContext,
  conversation: string,
  window: { fromSeq: number; toSeq: number; lastSeq: number; size: number },
): Html {
  const view = (q: Record<string, string | number>) =>
    `${ctx.base}/conversations/view?${new URLSearchParams({ c: conversation, ...Object.fromEntries(Object.entries(q).map(([k, v]) => [k, String(v)])) })}`;
  const older = window.fromSeq > 1;
  const newer = window.toSeq < window.lastSeq;
  return html`<div class="pager"><span>events #${window.fromSeq}–#${window.toSeq} of ${window.lastSeq}</span>
${older ? html`<a data-page="older" href="${view({ to: window.fromSeq - 1, size: window.size })}">← older</a>` : ""}
${newer ? html`<a data-page="newer" href="${view({ to: Math.min(window.lastSeq, window.toSeq + window.size), size: window.size })}">newer →</a>` : ""}
${newer ? html`<a href="${view({ size: window.size })}">latest</a>` : ""}</div>`;
}
