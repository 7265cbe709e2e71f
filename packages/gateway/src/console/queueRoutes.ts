/**
 * The queue inspector's routes: `/queue` (counts, filters, table; the table refreshes on the
 * SSE `queue` event), `/queue/rows` (that fragment), `/queue/held`, `/queue/intents/:id`
 * and its `retry` / `cancel` POSTs (the same status moves as `herald queue retry|cancel`).
 *
 * @module
 */
import {
  type DurableSendIntent,
  INTENT_STATUSES,
  type IntentStatus,
  isHeldForOperator,
  UNSENT_STATUSES,
} from "@herald/core";
import type { Context, Hono } from "hono";
import { html } from "hono/html";
import { cancelIntents, intentJson, redacted, retryIntents } from "../queue/operations.ts";
import { queueRows } from "../queue/queueRows.ts";
import { timelineOf } from "./attempts.ts";
import { signedNotice, verifiedNotice } from "./auth.ts";
import type { ConsoleDeps } from "./deps.ts";
import { inboundRetries } from "./inboundView.ts";
import { type Html, notice, type PageContext, page } from "./layout.ts";
import { queryChoice, queryPositive, queryValue } from "./query.ts";
import {
  countsBar,
  filterForm,
  filterQuery,
  heldList,
  intentDetail,
  intentTable,
  matches,
  type QueueFilter,
} from "./queueView.ts";

/** Most intents one table shows. */
const TABLE_LIMIT = 200;

/**
 * The filter of a queue page's query.
 * @throws ConsoleQueryError for an unknown `status` or an `age` that is not a positive number.
 */
function filterOf(c: Context): QueueFilter {
  const status = queryChoice(c, "status", [...INTENT_STATUSES, "held"] as const);
  const age = queryPositive(c, "age");
  const channel = queryValue(c, "channel");
  const account = queryValue(c, "account");
  const target = queryValue(c, "target");
  return {
    ...(status ? { status } : {}),
    ...(channel ? { channel } : {}),
    ...(account ? { account } : {}),
    ...(target ? { target } : {}),
    ...(age !== undefined ? { olderThanMin: age } : {}),
  };
}

/** Most intents one table scan reads (the store purges terminal intents, so this is generous). */
const SCAN_LIMIT = 50_000;

/**
 * The newest {@link TABLE_LIMIT} intents that match, oldest first: the store pages oldest first
 * (keyset on `seq`), so the scan keeps only the last matches it saw.
 */
async function listFiltered(deps: ConsoleDeps, f: QueueFilter): Promise<DurableSendIntent[]> {
  const statuses: IntentStatus[] | undefined =
    f.status === "held" ? ["unknown_after_send"] : f.status ? [f.status] : undefined;
  const now = deps.clock();
  const kept: DurableSendIntent[] = [];
  let afterSeq = 0;
  for (let scanned = 0; scanned < SCAN_LIMIT; ) {
    const page = await deps.store.listIntents({
      ...(statuses ? { statuses } : {}),
      ...(f.channel ? { channel: f.channel } : {}),
      afterSeq,
      limit: 1_000,
    });
    for (const i of page) if (matches(i, f, now)) kept.push(i);
    if (kept.length > TABLE_LIMIT) kept.splice(0, kept.length - TABLE_LIMIT);
    scanned += page.length;
    const last = page.at(-1);
    if (!last || page.length < 1_000) break;
    afterSeq = last.seq;
  }
  return kept;
}

/** Redirects after a POST: htmx follows `HX-Redirect`, a plain form the 303. */
export function redirect(c: Context, to: string): Response {
  if (c.req.header("hx-request")) return c.body(null, 200, { "hx-redirect": to });
  return c.redirect(to, 303);
}

/** Registers the queue routes on the signed-in console app. */
export function registerQueueRoutes(
  app: Hono,
  deps: ConsoleDeps,
  ctxOf: (c: Context) => PageContext,
): void {
  const rows = async (ctx: PageContext, f: QueueFilter): Promise<Html> =>
    intentTable(ctx, redacted(await listFiltered(deps, f), deps.redact), deps.clock());

  app.get("/queue", async (c) => {
    const ctx = ctxOf(c);
    const f = filterOf(c);
    const counts = await deps.store.countIntents(f.channel ? { channel: f.channel } : {});
    const held = (
      await deps.store.listIntents({ statuses: ["unknown_after_send"], limit: 5_000 })
    ).filter(isHeldForOperator).length;
    const body = html`<h1>Send queue</h1>
${inboundRetries(redacted(deps.runtime.pendingInbound(), deps.redact), deps.clock())}
<div id="queue-live" hx-get="${ctx.base}/queue/counts${filterQuery(f)}" hx-trigger="sse:queue" hx-swap="innerHTML">${countsBar(ctx, counts, held, f)}</div>
${filterForm(ctx, f)}
<section id="queue-rows" hx-get="${ctx.base}/queue/rows${filterQuery(f)}" hx-trigger="sse:queue" hx-swap="innerHTML">${await rows(ctx, f)}</section>
<p class="muted">Oldest first, the latest ${TABLE_LIMIT} that match; a live session's intents are grouped under it. Updates live.</p>`;
    return c.html(page(ctx, "Queue", body, "queue", { sse: true }));
  });

  app.get("/queue/counts", async (c) => {
    const ctx = ctxOf(c);
    const f = filterOf(c);
    const counts = await deps.store.countIntents(f.channel ? { channel: f.channel } : {});
    const held = (
      await deps.store.listIntents({ statuses: ["unknown_after_send"], limit: 5_000 })
    ).filter(isHeldForOperator).length;
    return c.html(countsBar(ctx, counts, held, f));
  });

  app.get("/queue/rows", async (c) => c.html(await rows(ctxOf(c), filterOf(c))));

  app.get("/queue/held", async (c) => {
    const ctx = ctxOf(c);
    const held = (
      await deps.store.listIntents({ statuses: ["unknown_after_send"], limit: 5_000 })
    ).filter(isHeldForOperator);
    const body = html`<h1>Held sends</h1>
<p>These sends may or may not have reached the platform (the connection broke after the request went out), and their channel can neither deduplicate a replay nor look the message up. herald holds them instead of guessing: check the chat, then retry or cancel.</p>
<div id="held-live" hx-get="${ctx.base}/queue/held/list" hx-trigger="sse:queue" hx-swap="innerHTML">${heldList(ctx, redacted(held, deps.redact))}</div>`;
    return c.html(page(ctx, "Held sends", body, "held", { sse: true }));
  });

  app.get("/queue/held/list", async (c) => {
    const held = (
      await deps.store.listIntents({ statuses: ["unknown_after_send"], limit: 5_000 })
    ).filter(isHeldForOperator);
    return c.html(heldList(ctxOf(c), redacted(held, deps.redact)));
  });

  app.get("/queue/intents/:id", async (c) => {
    const ctx = ctxOf(c);
    const stored = await deps.store.getIntent(c.req.param("id"));
    if (!stored)
      return c.html(page(ctx, "Not found", notice("error", "No such intent."), "queue"), 404);
    const intent = redacted(stored, deps.redact);
    const row = queueRows([intent])[0];
    const done = verifiedNotice(c, deps.token, ["done"])?.done;
    const body = html`${done ? notice("info", done) : ""}${intentDetail(ctx, intent, {
      status: row?.status ?? intent.status,
      op: row?.op ?? intent.operation.kind,
      json: intentJson(stored, deps.redact),
      timeline: timelineOf(intent, deps.attempts),
    })}`;
    return c.html(page(ctx, `Intent ${intent.id}`, body, "queue"));
  });

  for (const action of ["retry", "cancel"] as const) {
    app.post(`/queue/intents/:id/${action}`, async (c) => {
      const ctx = ctxOf(c);
      const id = c.req.param("id");
      const result =
        action === "retry"
          ? await retryIntents(deps.store, [id])
          : await cancelIntents(deps.store, [id]);
      if (action === "retry" && result.changed.length > 0) deps.runtime.worker.kick();
      const skipped = result.skipped[0];
      deps.logger.info(
        { intentId: id, action, changed: result.changed.length > 0, reason: skipped?.reason },
        "console queue action",
      );
      const message = skipped
        ? `Not ${action === "retry" ? "retried" : "cancelled"}: ${deps.redact(skipped.reason)}`
        : action === "retry"
          ? "Retried: the intent is pending and due now."
          : "Cancelled: nothing more will be sent.";
      return redirect(
        c,
        `${ctx.base}/queue/intents/${encodeURIComponent(id)}?${new URLSearchParams(signedNotice(deps.token, { done: message }))}`,
      );
    });
  }
}

/** Queue depth per (channel, account): intents not yet sent. */
export async function queueDepths(deps: ConsoleDeps): Promise<Map<string, number>> {
  const depths = new Map<string, number>();
  const unsent = await deps.store.listIntents({ statuses: [...UNSENT_STATUSES], limit: 10_000 });
  for (const i of unsent) {
    const key = `${i.channel}/${i.accountId ?? "default"}`;
    depths.set(key, (depths.get(key) ?? 0) + 1);
  }
  return depths;
}
