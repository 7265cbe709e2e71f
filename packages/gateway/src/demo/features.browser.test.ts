/**
 * [H23] The demo bot's features beyond text in a real browser (Debian chromium +
 * playwright-core) on the QA web chat: "👀" on the message while the bot works (then ✅), a
 * button round trip ("Approve?" → click → the action handler's reply, once), and a file reply
 * shown inline. The screenshot goes to `test-output/h23-demo.png` (git-ignored), or to
 * `HERALD_H23_SCREENSHOT` when set.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scaledMs } from "@herald/core/testing";
import { CHROMIUM_LAUNCH_OPTIONS, chromiumAvailable } from "@herald/plugin-sdk/testing";
import { type Browser, chromium } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { startDemo } from "../cli/commands/demo.ts";

const outDir = fileURLToPath(new URL("../../test-output/", import.meta.url));

describe.skipIf(!chromiumAvailable())("[H23] herald demo: reactions, buttons, files", () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
  });

  it("C-H23-demo: shows 👀 while working, answers a button click once, and replies with a file", {
    timeout: scaledMs(90_000),
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "herald-h23-demo-"));
    const demo = await startDemo({ port: 0, dir, logLevel: "error" });
    cleanup.push(() => demo.stop());
    const browser: Browser = await chromium.launch(CHROMIUM_LAUNCH_OPTIONS);
    cleanup.push(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 900, height: 1250 } });
    await page.goto(demo.chatUrl);
    await page.waitForSelector("body[data-ready='true']");
    const wait = { timeout: scaledMs(20_000) };

    // 1. A button round trip: "Approve?" with two buttons, a click, the handler's reply.
    await page.fill("#text", "deploy main please");
    await page.press("#text", "Enter");
    await page.waitForSelector(".msg.bot .buttons button[data-action-id='approve']", wait);
    await page.click(".msg.bot .buttons button[data-action-id='approve']");
    await page.waitForSelector(".msg.bot .text >> text=Approved by you", wait);

    // 2. A file reply, shown inline (an image) with its download link.
    await page.fill("#text", "send me the report");
    await page.press("#text", "Enter");
    await page.waitForSelector(".msg.bot .files img", wait);

    // 3. A plain message: 👀 while the bot works, then ✅ once it answered.
    await page.fill("#text", "hello bot");
    await page.press("#text", "Enter");
    await page.waitForSelector(".msg.user .reaction[data-emoji='👀']", wait);
    const path = process.env.HERALD_H23_SCREENSHOT ?? join(outDir, "h23-demo.png");
    mkdirSync(join(path, ".."), { recursive: true });
    await page.screenshot({ path: path.replace(/\.png$/, "-working.png") }); // 👀 while it works
    await page.waitForSelector(".msg.user .reaction[data-emoji='✅']", wait);

    const approvals = await page.locator(".msg.bot .text", { hasText: "Approved by" }).count();
    expect(approvals).toBe(1);
    // The click ran in a turn of its own: its reply carries the turn id, like a message's reply.
    const intents = await demo.gateway.runtime.store.listIntents();
    const answer = intents.find((i) => i.idempotencyKey.startsWith("action:"));
    expect(answer?.status).toBe("sent");
    expect(answer?.turnId).toEqual(expect.any(String));
    const file = await page.locator(".msg.bot .files a.file").first().textContent();
    expect(file).toContain("report.svg");
    await page.screenshot({ path, fullPage: true });
  });
});
