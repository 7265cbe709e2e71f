/**
 * The console's page shell: server-rendered HTML (hono's `html` helper: every interpolated
 * value is escaped, only `raw` is not), the navigation, and htmx (vendored from the `htmx.org`
 * package, served by the gateway — no CDN) with its SSE extension. The CSRF token rides on every
 * htmx request as the `x-csrf-token` header and in every form as `_csrf`.
 *
 * @module
 */
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

/** A rendered fragment (hono's `html` result). */
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** What every page needs to render its shell. */
export type PageContext = {
  /** Mount path, e.g. `/console`. */
  base: string;
  /** The session's CSRF token; absent on the login and 401 pages. */
  csrf?: string;
};

/** The sections of the navigation. */
export type Section = "queue" | "held" | "deadletters" | "conversations" | "accounts";

const NAV: ReadonlyArray<[Section, string, string]> = [
  ["queue", "/queue", "Queue"],
  ["held", "/queue/held", "Held sends"],
  ["deadletters", "/deadletters", "Dead letters"],
  ["conversations", "/conversations", "Conversations"],
  ["accounts", "/accounts", "Accounts"],
];

/** The whole page around `body`. */
export function page(
  ctx: PageContext,
  title: string,
  body: Html,
  section?: Section,
  options: { sse?: boolean } = {},
): Html {
  const headers = ctx.csrf ? JSON.stringify({ "x-csrf-token": ctx.csrf }) : undefined;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false}'>
<title>${title} · herald console</title>
<link rel="stylesheet" href="${ctx.base}/assets/console.css">
<script src="${ctx.base}/assets/htmx.min.js"></script>
<script src="${ctx.base}/assets/sse.js"></script>
<script src="${ctx.base}/assets/console.js" defer></script>
</head>
<body ${headers ? html`hx-headers="${headers}"` : ""}>
<header class="top">
  <a class="brand" href="${ctx.base}/">herald console</a>
  ${
    ctx.csrf
      ? html`<nav>${NAV.map(
          ([id, path, label]) =>
            html`<a href="${ctx.base}${path}" ${id === section ? html`aria-current="page"` : ""}>${label}</a>`,
        )}</nav><form class="logout" method="post" action="${ctx.base}/logout"><input type="hidden" name="_csrf" value="${ctx.csrf}"><button type="submit">Sign out</button></form>`
      : ""
  }
</header>
<main ${options.sse ? html`hx-ext="sse" sse-connect="${ctx.base}/events"` : ""}>
${body}
</main>
</body>
</html>`;
}

/** A hidden CSRF field for a form. */
export function csrfField(ctx: PageContext): Html {
  return html`<input type="hidden" name="_csrf" value="${ctx.csrf ?? ""}">`;
}

/** An epoch ms as a clock: `<time>` with the full ISO instant as its title. */
export function clock(at: number): Html {
  const iso = new Date(at).toISOString();
  return html`<time class="clock" datetime="${iso}" title="${iso}">${iso.slice(11, 19)}</time>`;
}

/** "3 s ago", "in 2 min": a relative time for tables. */
export function ago(at: number, now: number): string {
  const s = Math.round((now - at) / 1000);
  const abs = Math.abs(s);
  const text =
    abs < 60
      ? `${abs} s`
      : abs < 3600
        ? `${Math.round(abs / 60)} min`
        : abs < 86_400
          ? `${Math.round(abs / 3600)} h`
          : `${Math.round(abs / 86_400)} d`;
  return s >= 0 ? `${text} ago` : `in ${text}`;
}

/** A notice box (`kind` error for refusals such as `ForkUnavailableError`). */
export function notice(kind: "error" | "info", text: string, detail?: string): Html {
  return html`<div class="notice ${kind}" role="${kind === "error" ? "alert" : "status"}"><strong>${text}</strong>${detail ? html`<p>${detail}</p>` : ""}</div>`;
}

/** Most characters of one stored value (a raw payload, an intent's JSON) a page shows. */
export const MAX_SHOWN_CHARS = 32 * 1024;

/**
 * A `<pre class="raw">` of `text` (already redacted), cut at {@link MAX_SHOWN_CHARS} with a
 * note saying how much was left out, so a huge stored value (a 5 MB dead letter) never makes
 * the page huge or slow.
 */
export function rawBlock(text: string, where: string): Html {
  if (text.length <= MAX_SHOWN_CHARS) return html`<pre class="raw">${text}</pre>`;
  const kib = (n: number) => `${Math.round(n / 1024).toLocaleString("en")} KiB`;
  return html`<pre class="raw">${text.slice(0, MAX_SHOWN_CHARS)}</pre>${notice(
    "info",
    `Truncated: showing the first ${kib(MAX_SHOWN_CHARS)} of ${kib(text.length)}.`,
    `The whole value is in the store; ${where}.`,
  )}`;
}
