/**
 * The inbound events waiting for a retry in this gateway ([H28] C50): each failed before its
 * handler ran (the store could not be written, most often) and the runtime runs it again with
 * backoff until it is handled. Shown on the queue page while any waits; redacted by the caller.
 *
 * @module
 */
import type { PendingInbound } from "@herald/core";
import { html } from "hono/html";
import { ago, type Html } from "./layout.ts";

/** The section listing `pending` (empty when none waits). */
export function inboundRetries(pending: readonly PendingInbound[], now: number): Html | string {
  if (pending.length === 0) return "";
  return html`<section class="card inbound-retries" id="inbound-retries">
<h2>Inbound waiting for a retry (${pending.length})</h2>
<p>These messages arrived but failed before the bot's handler ran — most often because the store could not be written (a full disk). This gateway retries each with backoff; each is handled once when it goes through. Nothing to do but fix the cause (see <code>/healthz</code> and <code>herald_store_up</code>).</p>
<table><thead><tr><th>channel/account</th><th>message</th><th>attempts</th><th>first failed</th><th>next attempt</th><th>last error</th></tr></thead><tbody>
${pending.map(
  (
    p,
  ) => html`<tr data-inbound="${p.key ?? ""}"><td>${p.channel}/${p.accountId ?? "default"}</td><td><code>${p.key ?? "(not read yet)"}</code></td><td>${p.attempts}</td>
<td>${ago(p.firstFailedAt, now)}</td><td>${p.nextAttemptAt > now ? `in ${Math.ceil((p.nextAttemptAt - now) / 1000)} s` : "now"}</td><td>${p.lastError}</td></tr>`,
)}</tbody></table></section>`;
}
