/**
 * The console's static files, served by the gateway itself (no CDN): htmx and its SSE
 * extension read from their npm packages (`htmx.org`, `htmx-ext-sse`), plus the console's own
 * stylesheet and a small script (copy buttons).
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Hono } from "hono";
import { CONSOLE_CSS } from "./style.ts";

const require = createRequire(import.meta.url);

/**
 * The console's script: copy buttons (`[data-copy]` copies the text of the closest
 * `[data-copy-source]`). Event delegation only; htmx does every page update.
 */
const CONSOLE_JS = `document.addEventListener("click", async (event) => {
  const button = event.target instanceof Element ? event.target.closest("[data-copy]") : null;
  if (!button) return;
  const source = button.closest("[data-copy-source]")?.querySelector(".text");
  const text = source ? source.textContent : "";
  try {
    await navigator.clipboard.writeText(text);
    button.dataset.copied = "true";
    button.textContent = "copied";
    setTimeout(() => { delete button.dataset.copied; button.textContent = "copy"; }, 1500);
  } catch {
    const range = document.createRange();
    if (source) { range.selectNodeContents(source); getSelection()?.removeAllRanges(); getSelection()?.addRange(range); }
  }
});
`;

type Asset = { type: string; body: () => string };

const cache = new Map<string, string>();
const fromPackage = (specifier: string) => () => {
  let body = cache.get(specifier);
  if (body === undefined) {
    body = readFileSync(require.resolve(specifier), "utf8");
    cache.set(specifier, body);
  }
  return body;
};

const ASSETS: Readonly<Record<string, Asset>> = {
  "htmx.min.js": { type: "text/javascript", body: fromPackage("htmx.org/dist/htmx.min.js") },
  "sse.js": { type: "text/javascript", body: fromPackage("htmx-ext-sse/dist/sse.min.js") },
  "console.js": { type: "text/javascript", body: () => CONSOLE_JS },
  "console.css": { type: "text/css", body: () => CONSOLE_CSS },
};

/** Registers `GET /assets/:name` on the console app (no sign-in needed: nothing secret). */
export function registerAssets(app: Hono): void {
  app.get("/assets/:name", (c) => {
    const name = c.req.param("name");
    // Own keys only: `__proto__`, `constructor`, `toString` are not assets (a 500 before).
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!asset) return c.text(`no console asset named ${JSON.stringify(name)}`, 404);
    return c.body(asset.body(), 200, {
      "content-type": `${asset.type}; charset=utf-8`,
      "cache-control": "public, max-age=3600",
    });
  });
}
