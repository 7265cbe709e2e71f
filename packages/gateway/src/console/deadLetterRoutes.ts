/**
 * Dead letters in the console: the inbound events herald could not read, each with its raw
 * payload (redacted), the error with its field path, and Replay (the payload goes through
 * receive again, with the gateway's handler) or Discard.
 *
 * @module
 */
import type { DeadLetter } from "@herald/core";
import type { Context, Hono } from "hono";
import { html } from "hono/html";
import { redacted } from "../queue/operations.ts";
import { signedNotice, verifiedNotice } from "./auth.ts";
import type { ConsoleDeps } from "./deps.ts";
import { ago, csrfField, type Html, notice, type PageContext, page, rawBlock } from "./layout.ts";
import { queryChoice } from "./query.ts";
import { redirect } from "./queueRoutes.ts";

const STATUSES: readonly DeadLetter["status"][] = ["new", "replayed", "discarded"];

function letterView(ctx: PageContext, l: DeadLetter, now: number): Html {
  const url = `${ctx.base}/deadletters/${encodeURIComponent(l.id)}`;
  const act = (action: "replay" | "discard", label: string, what: string) =>
    html`<form method="post" action="${url}/${action}" hx-post="${url}/${action}" hx-confirm="${label} dead letter ${l.id}? ${what}">${csrfField(ctx)}<button type="submit" class="${action === "replay" ? "primary" : "danger"}" data-action="${action}">${label}</button><span class="what">${what}</span></form>`;
  return html`<section class="card deadletter" data-dead-letter="${l.id}">
<h2><code>${l.id}</code> · ${l.channel}/${l.accountId ?? "default"} · <span class="status">${l.status}${l.replayCount > 0 ? ` (${l.replayCount}× replayed)` : ""}</span> · <span class="muted">${ago(l.receivedAt, now)}</span></h2>
<dl><dt>error</dt><dd><code>${l.error.name}${l.error.code ? ` ${l.error.code}` : ""}</code>: ${l.error.message}</dd>
${l.error.path ? html`<dt>field path</dt><dd><code class="field-path">${l.error.path}</code></dd>` : ""}</dl>
<h3>Raw payload</h3>${rawBlock(typeof l.raw === "string" ? l.raw : JSON.stringify(l.raw, null, 2), "replay reads all of it")}
${
  l.status === "discarded"
    ? html`<p class="muted">discarded</p>`
    : html`<div class="actions">${act("replay", "Replay", "Runs the payload through receive again (after a fix to the adapter or config); it becomes a message for the bot if it now reads.")}${act("discard", "Discard", "Marks it discarded: it is kept for the record but never replayed.")}</div>`
}</section>`;
}

/** Registers `/deadletters` and its replay / discard POSTs. */
export function registerDeadLetterRoutes(
  app: Hono,
  deps: ConsoleDeps,
  ctxOf: (c: Context) => PageContext,
): void {
  app.get("/deadletters", async (c) => {
    const ctx = ctxOf(c);
    const status = queryChoice(c, "status", STATUSES);
    const letters = await deps.store.listDeadLetters({ ...(status ? { status } : {}), limit: 100 });
    const done = verifiedNotice(c, deps.token, ["done"])?.done;
    const now = deps.clock();
    const body = html`<h1>Dead letters</h1>${done ? notice("info", done) : ""}
<p>Inbound events herald could not read (unparseable or invalid platform payloads), kept instead of dropped.</p>
<div class="counts">${["", ...STATUSES].map((s) => html`<a class="count ${(status ?? "") === s ? "active" : ""}" href="${ctx.base}/deadletters${s ? `?status=${s}` : ""}">${s || "all"}</a>`)}</div>
${letters.length === 0 ? html`<p class="empty">no dead letters: every inbound event was readable</p>` : redacted(letters, deps.redact).map((l) => letterView(ctx, l, now))}`;
    return c.html(page(ctx, "Dead letters", body, "deadletters"));
  });

  app.post("/deadletters/:id/replay", async (c) => {
    const ctx = ctxOf(c);
    const id = c.req.param("id");
    let message: string;
    try {
      const outcome = await deps.runtime.deadLetters.replay(id);
      message =
        outcome.status === "dead_lettered"
          ? `Replayed ${id}: it still does not read, so it stays a dead letter.`
          : `Replayed ${id}: ${outcome.status}.`;
    } catch (error) {
      message = `Not replayed: ${deps.redact((error as Error).message)}`;
    }
    return redirect(
      c,
      `${ctx.base}/deadletters?${new URLSearchParams(signedNotice(deps.token, { done: message }))}`,
    );
  });

  app.post("/deadletters/:id/discard", async (c) => {
    const ctx = ctxOf(c);
    const id = c.req.param("id");
    let message: string;
    try {
      await deps.runtime.deadLetters.discard(id);
      message = `Discarded ${id}.`;
    } catch (error) {
      message = `Not discarded: ${deps.redact((error as Error).message)}`;
    }
    return redirect(
      c,
      `${ctx.base}/deadletters?${new URLSearchParams(signedNotice(deps.token, { done: message }))}`,
    );
  });
}
