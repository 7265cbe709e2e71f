/**
 * The main job end to end, in a real browser (Debian chromium + playwright-core): the QA web
 * chat, a `herald start` gateway in a child process running the demo bot, a streamed reply and
 * its activity-log thread; then the gateway is SIGKILLed while the reply's final is in
 * `sending`, restarted, and exactly one final reply is visible. `herald queue ls` then shows the
 * intents by status. A screenshot goes to `test-output/` (git-ignored).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SqliteStateStore } from "@herald/core";
import { scaledMs, trackChild } from "@herald/core/testing";
import { DEFAULT_QA_BOT, QaPlatform } from "@herald/plugin-qa-channel/testing";
import { CHROMIUM_LAUNCH_OPTIONS, chromiumAvailable } from "@herald/plugin-sdk/testing";
import { type Browser, chromium } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { demoAnswer } from "./demoBot.ts";

const hasChromium = chromiumAvailable();

const cli = fileURLToPath(new URL("../cli/main.ts", import.meta.url));
const demoBot = fileURLToPath(new URL("./demoBot.ts", import.meta.url));
const outDir = fileURLToPath(new URL("../../test-output/", import.meta.url));

function startGateway(config: string, env: Record<string, string> = {}): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = trackChild(
      spawn(process.execPath, ["--conditions=herald-source", cli, "start", "--config", config], {
        env: {
          ...process.env,
          HERALD_QA_TOKEN: DEFAULT_QA_BOT.token,
          HERALD_DEMO_DELAY_MS: "60",
          ...env,
        },
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    let err = "";
    child.stderr?.on("data", (d) => {
      err += d;
    });
    child.stdout?.on("data", (d) => {
      if (String(d).includes("herald gateway running")) resolve(child);
    });
    child.once("exit", (code, signal) =>
      reject(new Error(`gateway exited (${code ?? signal}) before starting: ${err}`)),
    );
  });
}

/** A page-side predicate: a top-level bot message shows exactly `text`. */
const finalShown = (text: string) =>
  `[...document.querySelectorAll(".msg.bot:not(.thread) .text")].some((e) => e.textContent === ${JSON.stringify(text)})`;

const exited = (child: ChildProcess) =>
  new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.exitCode !== null || child.signalCode !== null
      ? resolve(child.signalCode ?? child.exitCode)
      : child.once("exit", (code, signal) => resolve(signal ?? code)),
  );

describe.skipIf(!hasChromium)("herald demo in a real browser, with a gateway crash", () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
  });

  it("streams a reply with its activity thread, and after a SIGKILL mid-send shows exactly one final", {
    timeout: scaledMs(120_000),
  }, async () => {
    const platform = await QaPlatform.start();
    cleanup.push(() => platform.close());
    platform.createChat({ id: "lobby", type: "group" });
    const dir = mkdtempSync(join(tmpdir(), "herald-demo-e2e-"));
    const config = join(dir, "herald.config.json");
    writeFileSync(
      config,
      JSON.stringify({
        store: { sqlite: { path: "state.db" } },
        channels: [
          {
            plugin: "@herald/plugin-qa-channel",
            account: DEFAULT_QA_BOT.id,
            config: { baseUrl: platform.url },
          },
        ],
        handler: demoBot,
        http: { port: 0 },
        delivery: { workerId: "gw1", leaseMs: 2_000 },
        log: { level: "warn" },
      }),
    );
    let gateway = await startGateway(config);
    cleanup.push(async () => {
      gateway.kill("SIGKILL");
      await exited(gateway);
    });

    const browser: Browser = await chromium.launch(CHROMIUM_LAUNCH_OPTIONS);
    cleanup.push(() => browser.close());
    const page = await browser.newPage();
    await page.goto(`${platform.url}/?chat=lobby&user=tester`);
    await page.waitForSelector("body[data-ready='true']");

    // 1. A streamed reply and its activity-log thread.
    await page.fill("#text", "hello bot");
    await page.press("#text", "Enter");
    const first = demoAnswer("hello bot");
    await page.waitForFunction(finalShown(first), undefined, { timeout: scaledMs(20_000) });
    await page.waitForSelector(".msg.bot.thread >> text=search", { timeout: scaledMs(10_000) });

    // 2. Slow the platform's edits so the next final sits in `sending`, and kill the gateway there.
    platform.faults.failNext({ kind: "delay", delayMs: 1_500 }, { op: "edit", times: 50 });
    await page.fill("#text", "second question");
    await page.press("#text", "Enter");
    const store = new SqliteStateStore({ path: join(dir, "state.db") });
    cleanup.push(() => store.close());
    const deadline = Date.now() + scaledMs(30_000);
    for (;;) {
      const sending = await store.listIntents({ statuses: ["sending"] });
      if (sending.some((i) => i.idempotencyKey.startsWith("stream:"))) break;
      if (Date.now() > deadline) throw new Error("the reply's final never reached sending");
      await new Promise((r) => setTimeout(r, 20));
    }
    gateway.kill("SIGKILL");
    expect(await exited(gateway)).toBe("SIGKILL");
    platform.faults.clear();
    gateway = await startGateway(config);

    const second = demoAnswer("second question");
    await page.waitForFunction(finalShown(second), undefined, { timeout: scaledMs(30_000) });
    await new Promise((r) => setTimeout(r, 1_500)); // let recovery settle: nothing more may appear
    const finals = await page.$$eval(".msg.bot:not(.thread) .text", (els) =>
      els.map((e) => e.textContent),
    );
    expect(finals.filter((t) => t === second)).toHaveLength(1);
    expect(finals.filter((t) => t === first)).toHaveLength(1);
    expect(finals).toHaveLength(2); // no orphan preview left visible
    mkdirSync(outDir, { recursive: true });
    await page.screenshot({ path: join(outDir, "demo.png"), fullPage: true });

    // 3. The operator's view of the queue.
    const ls = spawnSync(
      process.execPath,
      ["--conditions=herald-source", cli, "queue", "ls", "--config", config],
      {
        encoding: "utf8",
      },
    );
    expect(ls.status).toBe(0);
    const sent = Number(/sent: (\d+)/.exec(ls.stdout)?.[1]);
    expect(sent).toBeGreaterThanOrEqual(4); // two finals and their activity-log posts
    expect(ls.stdout).toMatch(/unknown_after_send: 0/);
    expect(ls.stdout).toContain("second question");
  });
});
