/**
 * Accounts and receivers in the console: each account's receiver health (what the gateway's
 * supervisor knows: state, since, detail, restarts, stopped), its queue depth (intents not yet
 * sent) and its recent delivery failures by kind.
 *
 * @module
 */
import type { Context, Hono } from "hono";
import { html } from "hono/html";
import type { ConsoleDeps } from "./deps.ts";
import { ago, type PageContext, page } from "./layout.ts";
import { queueDepths } from "./queueRoutes.ts";

/** How far back "recent failures" look, in ms. */
export const RECENT_FAILURES_MS = 24 * 3_600_000;

/** Registers `/accounts`. */
export function registerAccountRoutes(
  app: Hono,
  deps: ConsoleDeps,
  ctxOf: (c: Context) => PageContext,
): void {
  app.get("/accounts", async (c) => {
    const ctx = ctxOf(c);
    const now = deps.clock();
    const depths = await queueDepths(deps);
    const failed = await deps.store.listIntents({
      statuses: ["failed", "unknown_after_send", "pending"],
      limit: 10_000,
    });
    const failures = new Map<string, Map<string, number>>();
    for (const i of failed) {
      const at = i.failure?.at ?? i.updatedAt;
      if (!i.failure || at < now - RECENT_FAILURES_MS) continue;
      const key = `${i.channel}/${i.accountId ?? "default"}`;
      const kinds = failures.get(key) ?? new Map<string, number>();
      kinds.set(i.failure.kind, (kinds.get(i.failure.kind) ?? 0) + 1);
      failures.set(key, kinds);
    }
    const accounts = deps.accounts();
    const body = html`<h1>Accounts and receivers</h1>
<table class="accounts"><thead><tr><th>channel/account</th><th>receiver</th><th>since</th><th>detail</th><th>restarts</th><th>queue depth</th><th>failures (24 h) by kind</th></tr></thead><tbody>
${accounts.map((a) => {
  const key = `${a.channel}/${a.account}`;
  const kinds = [...(failures.get(key) ?? new Map<string, number>())];
  return html`<tr data-account="${key}"><td>${key}${a.identity ? html`<div class="muted">${a.identity.name ?? a.identity.id}</div>` : ""}</td>
<td class="status ${a.state === "up" ? "status-sent" : a.stopped ? "status-failed" : "status-unknown_after_send"}">${a.stopped ? "stopped" : a.state}</td>
<td>${ago(a.since, now)}</td><td>${deps.redact(a.detail ?? "")}</td><td>${a.restarts}</td><td class="depth">${depths.get(key) ?? 0}</td>
<td>${kinds.length === 0 ? html`<span class="muted">none</span>` : kinds.map(([k, n]) => html`<code>${k}</code> ${n} `)}</td></tr>`;
})}</tbody></table>
${accounts.length === 0 ? html`<p class="empty">no accounts configured</p>` : ""}
<p class="muted">Failures: intents whose last attempt failed in the last 24 h (failed, held, or waiting to retry).</p>`;
    return c.html(page(ctx, "Accounts", body, "accounts"));
  });
}
