/**
 * The web chat page in a real browser (Debian chromium, headless): a person types a message,
 * the bot — a real herald runtime with the QA adapter and receiver — streams its answer as a
 * live preview, and the page shows that preview being edited into the final, one message.
 * Skipped when chromium is missing, except under CI (`.ci/run` installs it).
 */
import {
  CHROMIUM_LAUNCH_OPTIONS,
  chromiumAvailable,
  createMessageRuntime,
  createReceiverSink,
  eventually,
  SqliteStateStore,
  scaledMs,
} from "@herald/plugin-sdk/testing";
import { type Browser, chromium } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { createQaAdapter, createQaReceiverFor } from "../../index.ts";
import { testConfig } from "../harness.ts";
import { DEFAULT_QA_BOT, QaPlatform } from "./QaPlatform.ts";

const hasChromium = chromiumAvailable();

/** Runs in the page: keeps every distinct text bot messages showed, in `window.seen`. */
const RECORD_BOT_TEXTS = `(() => {
  const seen = [];
  window.seen = seen;
  new MutationObserver(() => {
    for (const el of document.querySelectorAll(".msg.bot .text")) {
      const text = el.textContent || "";
      if (seen.at(-1) !== text) seen.push(text);
    }
  }).observe(document.getElementById("log"), { subtree: true, childList: true, characterData: true });
})()`;

const FINAL = "Hello! You said: hello bot. Here is my whole answer.";
const STEPS = ["Hello!", "Hello! You said:", "Hello! You said: hello bot.", FINAL];

describe.skipIf(!hasChromium)("web chat page in a real browser", () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
  });

  it("shows the bot's streamed reply as a live preview edited into the final message", async () => {
    const platform = await QaPlatform.start();
    cleanup.push(() => platform.close());
    const config = testConfig({
      baseUrl: platform.url,
      token: DEFAULT_QA_BOT.token,
      maxLength: 4_000,
      delivery: "idempotent",
    });
    const store = new SqliteStateStore({ path: ":memory:" });
    const runtime = createMessageRuntime({
      store,
      adapters: [createQaAdapter(config, DEFAULT_QA_BOT.token)],
      receive: {
        handler: async (ctx) => {
          const live = await runtime.live(
            { channel: "qa", target: ctx.input.target, accountId: DEFAULT_QA_BOT.id },
            { idempotencyKey: `reply:${ctx.input.id}` },
          );
          live.update("Thinking…");
          for (const text of STEPS) {
            await new Promise((resolve) => setTimeout(resolve, 250));
            live.update(text);
          }
          await live.finalize(FINAL);
        },
      },
    });
    await runtime.start();
    const receiver = createQaReceiverFor(
      config,
      DEFAULT_QA_BOT.token,
      createReceiverSink(runtime, { channel: "qa", accountId: DEFAULT_QA_BOT.id }),
    );
    await receiver.start?.();
    cleanup.push(async () => {
      await receiver.stop?.();
      await runtime.stop(1_000);
      await store.close();
    });

    const browser: Browser = await chromium.launch(CHROMIUM_LAUNCH_OPTIONS);
    cleanup.push(() => browser.close());
    const page = await browser.newPage();
    await page.goto(`${platform.url}/?chat=web&user=tester`);
    await page.waitForSelector("body[data-ready='true']");
    // Record every text the bot's messages show, as the person sees them (page-side script).
    await page.evaluate(RECORD_BOT_TEXTS);

    await page.fill("#text", "hello bot");
    await page.press("#text", "Enter");
    await page.waitForSelector(".msg.user >> text=hello bot");
    await page.waitForFunction(
      `(() => {
        const bots = document.querySelectorAll(".msg.bot .text");
        return bots.length === 1 && bots[0].textContent === ${JSON.stringify(FINAL)};
      })()`,
      undefined,
      { timeout: scaledMs(15_000) },
    );

    const seen = (await page.evaluate("window.seen")) as string[];
    expect(seen[0]).toBe("Thinking…");
    expect(seen.at(-1)).toBe(FINAL);
    expect(seen.length).toBeGreaterThanOrEqual(3); // preview, at least one edit, the final
    expect(await page.locator(".msg.bot").count()).toBe(1);
    expect(
      Number(await page.locator(".msg.bot").getAttribute("data-edits")),
    ).toBeGreaterThanOrEqual(2);
    // The platform agrees: one bot message, edited in place from the preview to the final.
    const [reply] = await eventually(
      () => platform.state.messages({ chat: "web", authorId: DEFAULT_QA_BOT.id }),
      (m) => m.length === 1,
    );
    expect(reply?.history[0]).toBe("Thinking…");
    expect(reply?.text).toBe(FINAL);
  });
});
