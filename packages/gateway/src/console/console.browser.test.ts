/**
 * [H18] The web console in a real browser (Debian chromium + playwright-core) against a
 * gateway (`herald(config)`) with the QA channel:
 * - the conversation view's branch eligibility on the seed's shapes (`completed-turn-boundaries.md`):
 *   response → tool → interrupted reasoning (branch hidden on the response, copy and clock
 *   kept), a normal assistant tail (branch shown), a user-only tail, an open turn (no branch
 *   anywhere in it), a paged window that omits the later user bubble (eligibility still right);
 * - a branch clicked in the UI yields a conversation whose transcript ends at that turn's end;
 *   a refused fork (`ForkUnavailableError`) is shown as a clear message;
 * - retry of a held `unknown_after_send` intent from the inspector delivers exactly one message
 *   on the QA platform; cancel leaves none;
 * - no token → 401 sign-in page; a cross-site POST is refused and changes nothing.
 * Screenshots go to `test-output/console-*.png` (git-ignored); with
 * `HERALD_UPDATE_SCREENSHOTS=1` the conversation one also replaces `docs/console.png`.
 */
import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ChannelMessage, TurnLifecycleEvent } from "@herald/core";
import { scaledMs } from "@herald/core/testing";
import { DEFAULT_QA_BOT, QaPlatform } from "@herald/plugin-qa-channel/testing";
import { CHROMIUM_LAUNCH_OPTIONS, chromiumAvailable } from "@herald/plugin-sdk/testing";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BotTurn } from "../bot/BotTurn.ts";
import type { Gateway } from "../gateway.ts";
import { herald } from "../herald.ts";

const hasChromium = chromiumAvailable();
const TOKEN = "console-token-for-the-browser-test";
const outDir = fileURLToPath(new URL("../../test-output/", import.meta.url));
const docsShot = fileURLToPath(new URL("../../../../docs/console.png", import.meta.url));

/** The scripted bot: each chat is one of the seed's shapes. */
function shapes(release: Promise<void>) {
  return async (turn: BotTurn) => {
    const shape = turn.message.target.id;
    if (shape === "interrupted") {
      await turn.activity({ role: "assistant", text: "Here is the response." });
      await turn.activity({ role: "tool", name: "Read", input: "src/app.ts", content: "42 lines" });
      await turn.activity({ role: "reasoning", text: "", interrupted: true });
    } else if (shape === "normal" || shape === "paged") {
      await turn.activity({ role: "tool", name: "Search", input: turn.text, content: "3 hits" });
      await turn.reply(`Answer to: ${turn.text}`);
    } else if (shape === "open") {
      await turn.activity({ role: "assistant", text: "Working on it…" });
      await release; // stays open until the test ends
    }
    // "useronly": the turn ends with the user's message as its tail.
  };
}

describe.skipIf(!hasChromium)("web console in a real browser", () => {
  let platform: QaPlatform;
  let gateway: Gateway;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let evil: Server;
  let releaseOpen: () => void = () => {};
  const conversations = new Map<string, string>();
  const ended = new Set<string>();
  const cleanup: Array<() => Promise<unknown>> = [];

  /** Posts `text` in `chat` and waits for its turn to reach `until`. */
  async function say(chat: string, text: string, until: "ended" | "started" = "ended") {
    const before = new Set(ended);
    const message = platform.post({ chat, text, author: { id: "ana", name: "Ana" } });
    const deadline = Date.now() + scaledMs(10_000);
    for (;;) {
      const conv = conversations.get(chat);
      if (until === "started" && conv) return conv;
      if (until === "ended" && conv && [...ended].some((e) => !before.has(e))) return conv;
      if (Date.now() > deadline) throw new Error(`no turn for ${message.id} in ${chat}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  const view = (conversation: string, q: Record<string, string> = {}) =>
    `${gateway.url}/console/conversations/view?${new URLSearchParams({ c: conversation, ...q })}`;

  /** Per node of the page: role, text, whether it offers branch, copy and clock. */
  const nodes = () =>
    page.$$eval(".node", (els) =>
      els.map((e) => ({
        role: e.getAttribute("data-role"),
        text: e.querySelector(".text")?.textContent ?? "",
        branch: e.querySelector("[data-action=branch]") !== null,
        copy: e.querySelector("[data-copy]") !== null,
        clock: e.querySelector("time.clock") !== null,
      })),
    );

  beforeAll(async () => {
    platform = await QaPlatform.start();
    for (const id of [
      "interrupted",
      "normal",
      "useronly",
      "open",
      "paged",
      "held-1",
      "held-2",
      "held-3",
      "held-4",
    ])
      platform.createChat({ id, type: "direct" });
    const open = new Promise<void>((resolve) => {
      releaseOpen = resolve;
    });
    gateway = await herald(
      {
        store: { sqlite: { path: ":memory:" } },
        channels: [
          {
            plugin: "@herald/plugin-qa-channel",
            account: DEFAULT_QA_BOT.id,
            config: { baseUrl: platform.url, delivery: "hold", requestTimeoutMs: 2_000 },
          },
        ],
        http: { port: 0 },
        console: { tokenEnv: "HERALD_CONSOLE_TOKEN" },
        log: { level: "silent" },
      },
      {
        env: { HERALD_QA_TOKEN: DEFAULT_QA_BOT.token, HERALD_CONSOLE_TOKEN: TOKEN },
        handler: shapes(open),
        activityLog: false,
        notice: { write: () => true },
      },
    );
    gateway.runtime.onTurn((e: TurnLifecycleEvent) => {
      conversations.set(e.root.target.id, e.conversation);
      if (e.type === "ended") ended.add(e.turnId);
    });
    await gateway.start();
    cleanup.push(() => platform.close());
    cleanup.push(() => gateway.stop(500));
    browser = await chromium.launch(CHROMIUM_LAUNCH_OPTIONS);
    cleanup.push(() => browser.close());
    context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    page = await context.newPage();
    page.on("dialog", (d) => void d.accept());
    // A page of another origin (another port of 127.0.0.1: same site, other origin).
    evil = createServer((_req, res) => {
      res.setHeader("content-type", "text/html");
      res.end("<!doctype html><p>another site</p>");
    });
    await new Promise<void>((r) => evil.listen(0, "127.0.0.1", r));
    cleanup.push(() => new Promise((r) => evil.close(r)));
  }, scaledMs(30_000));

  afterAll(async () => {
    releaseOpen();
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
  });

  it("answers 401 with the sign-in page without the token, and signs in with it", async () => {
    const response = await page.goto(`${gateway.url}/console/queue`);
    expect(response?.status()).toBe(401);
    expect(await page.textContent("h1")).toBe("Sign in");
    expect(await page.content()).not.toContain(TOKEN);
    await page.fill("input[name=token]", "wrong-token-000000000");
    await page.click("button[type=submit]");
    expect(await page.textContent(".notice.error")).toContain("Wrong token");
    await page.fill("input[name=token]", TOKEN);
    await Promise.all([page.waitForURL(/\/console\/queue$/), page.click("button[type=submit]")]);
    expect(await page.textContent("h1")).toBe("Send queue");
    const cookie = (await context.cookies()).find((c) => c.name === "herald_console");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/console" });
    expect(cookie?.value).not.toContain(TOKEN);
  });

  it("response → tool → interrupted reasoning: no branch on the response, copy and clock kept", async () => {
    const conversation = await say("interrupted", "explain the app");
    await page.goto(view(conversation));
    const shown = await nodes();
    expect(shown.map((n) => n.role)).toEqual(["user", "assistant", "tool", "reasoning"]);
    expect(shown.every((n) => n.copy && n.clock)).toBe(true);
    expect(shown.filter((n) => n.branch)).toEqual([]);
    expect(await page.getAttribute(".turn", "data-state")).toBe("completed");
  });

  it("a normal assistant tail offers branch on it only; a user-only tail on the user message", async () => {
    const normal = await say("normal", "what is herald?");
    await page.goto(view(normal));
    const shown = await nodes();
    expect(shown.map((n) => [n.role, n.branch])).toEqual([
      ["user", false],
      ["tool", false],
      ["assistant", true],
    ]);
    expect(shown.every((n) => n.copy && n.clock)).toBe(true);

    const userOnly = await say("useronly", "just saying hi");
    await page.goto(view(userOnly));
    expect((await nodes()).map((n) => [n.role, n.branch])).toEqual([["user", true]]);
  });

  it("an open turn offers no branch anywhere in it", async () => {
    const conversation = await say("open", "a long job", "started");
    await page.goto(view(conversation));
    await page.waitForSelector(".node.role-assistant");
    expect(await page.getAttribute(".turn", "data-state")).toBe("open");
    const shown = await nodes();
    expect(shown.map((n) => n.role)).toEqual(["user", "assistant"]);
    expect(shown.some((n) => n.branch)).toBe(false);
    expect(shown.every((n) => n.copy && n.clock)).toBe(true);
  });

  it("a paged window without the later user bubble still branches at the completed turn", async () => {
    const conversation = await say("paged", "first question");
    await say("paged", "second question");
    const events = await gateway.runtime.store.readLedger({ conversation });
    const firstEnd = events.find((e) => e.type === "turn/end");
    if (!firstEnd) throw new Error("no turn/end");
    // The window ends at the first turn's turn/end: the second user bubble is not in it.
    await page.goto(view(conversation, { to: String(firstEnd.seq), size: String(firstEnd.seq) }));
    let shown = await nodes();
    expect(shown.map((n) => n.text)).not.toContain("second question");
    expect(shown.map((n) => [n.role, n.branch])).toEqual([
      ["user", false],
      ["tool", false],
      ["assistant", true],
    ]);
    // One event less: the turn/end is outside the window, so the turn reads open — no branch,
    // whatever comes after it.
    await page.goto(view(conversation, { to: String(firstEnd.seq - 1), size: "100" }));
    shown = await nodes();
    expect(shown.some((n) => n.branch)).toBe(false);
    expect(await page.getAttribute(".turn", "data-state")).toBe("open");
    // A window that starts inside the second turn finds its tail through its turn/end.
    const last = events.at(-1)?.seq ?? 0;
    await page.goto(view(conversation, { to: String(last), size: "2" }));
    expect((await nodes()).map((n) => [n.role, n.branch])).toEqual([["assistant", true]]);
    await page.click("[data-page=older]");
    await page.waitForURL(/to=/);
    expect(await page.locator(".pager").textContent()).toContain(`#${last - 3}–#${last - 2}`);
  });

  it("a branch clicked in the UI opens a conversation that ends at that turn's end", async () => {
    const conversation = conversations.get("paged") ?? "";
    const events = await gateway.runtime.store.readLedger({ conversation });
    const firstEnd = events.find((e) => e.type === "turn/end");
    await page.goto(view(conversation));
    const branches = page.locator("[data-action=branch]");
    expect(await branches.count()).toBe(2);
    await Promise.all([
      page.waitForURL((url) => (url.searchParams.get("c") ?? "").includes("~fork-")),
      branches.first().click(),
    ]);
    const forked = new URL(page.url()).searchParams.get("c") ?? "";
    expect(await page.textContent(".notice.info")).toContain(`Forked from ${conversation}`);
    const shown = await nodes();
    expect(shown.map((n) => n.text)).toEqual([
      "first question",
      "Search first question\n3 hits",
      "Answer to: first question",
    ]);
    // The copy ends with that turn's turn/end (the fork header first, then the turn).
    const copy = await gateway.runtime.store.readLedger({ conversation: forked });
    expect(copy.map((e) => e.type)).toEqual([
      "fork/origin",
      ...events.filter((e) => e.seq <= (firstEnd?.seq ?? 0)).map((e) => e.type),
    ]);
    expect(copy.at(-1)?.type).toBe("turn/end");
    expect(await page.locator(".turn").last().getAttribute("data-state")).toBe("completed");
  });

  it("forks the latest completed turn from the session action, and shows a refused fork clearly", async () => {
    const open = conversations.get("open") ?? "";
    await page.goto(view(open));
    await page.click("[data-action=fork-latest]");
    await page.waitForSelector(".notice.error");
    expect(await page.textContent(".notice.error")).toContain("no completed turn");
    // A stale or forged branch at a seq of the open turn: the ledger refuses it.
    const seq = await page.getAttribute(".node.role-assistant", "data-seq");
    await page.evaluate(`(() => {
      const form = document.createElement("form");
      form.method = "post";
      form.action = "/console/conversations/fork";
      const fields = { c: ${JSON.stringify(open)}, atSeq: ${JSON.stringify(seq ?? "0")},
        _csrf: document.querySelector("input[name=_csrf]").value };
      for (const [name, value] of Object.entries(fields)) {
        const input = document.createElement("input");
        input.name = name;
        input.value = value;
        form.append(input);
      }
      document.body.append(form);
      form.submit();
    })()`);
    await page.waitForURL(/forkError=open_turn/);
    const refused = await page.textContent(".notice.error");
    expect(refused).toContain("Cannot branch there.");
    expect(refused).toMatch(/cannot fork .* at seq \d+: turn .* has no turn\/end yet/);

    const normal = conversations.get("normal") ?? "";
    await page.goto(view(normal));
    await Promise.all([
      page.waitForURL((url) => (url.searchParams.get("c") ?? "").includes("~fork-")),
      page.click("[data-action=fork-latest]"),
    ]);
    expect((await nodes()).at(-1)?.text).toBe("Answer to: what is herald?");
  });

  it("forks from the conversation list's row action too", async () => {
    await page.goto(`${gateway.url}/console/conversations`);
    const row = page.locator(`tr[data-conversation="${conversations.get("useronly") ?? ""}"]`);
    await Promise.all([
      page.waitForURL((url) => (url.searchParams.get("c") ?? "").includes("~fork-")),
      row.locator("[data-action=fork-latest]").click(),
    ]);
    expect((await nodes()).map((n) => n.text)).toEqual(["just saying hi"]);
  });

  it("updates the open page live when the turn ends: only then does its tail offer branch", async () => {
    await page.goto(view(conversations.get("open") ?? ""));
    expect(await page.locator("[data-action=branch]").count()).toBe(0);
    releaseOpen(); // the handler returns: turn/end is written
    await page.waitForSelector(".turn[data-state=completed]", { timeout: scaledMs(5_000) });
    expect((await nodes()).map((n) => [n.role, n.branch])).toEqual([
      ["user", false],
      ["assistant", true],
    ]);
  });

  /**
   * Enqueues a message to chat `chat` whose send is reset before the platform accepts it (one
   * chat each: a held intent blocks later ones with its ordering key).
   */
  async function heldIntent(text: string, chat: string): Promise<string> {
    platform.faults.failNext({ kind: "reset_before_accept" }, { op: "send" });
    const message: ChannelMessage = {
      id: `m-${text}`,
      channel: "qa",
      accountId: DEFAULT_QA_BOT.id,
      direction: "outbound",
      target: { kind: "direct", id: chat },
      body: { markdown: text },
      relation: { kind: "system", reason: "cli" },
    };
    const intent = await gateway.runtime.enqueue(message);
    const deadline = Date.now() + scaledMs(10_000);
    for (;;) {
      const now = await gateway.runtime.store.getIntent(intent.id);
      if (now?.status === "unknown_after_send" && now.nextAttemptAt === 8_640_000_000_000_000)
        return intent.id;
      if (Date.now() > deadline) throw new Error(`intent never held: ${JSON.stringify(now)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const shownIn = (chat: string) => platform.state.messages({ chat }).length;

  it("retry of a held intent delivers exactly one message; cancel leaves none", async () => {
    const retried = await heldIntent("held reply one", "held-1");
    const cancelled = await heldIntent("held reply two", "held-2");
    expect(shownIn("held-1")).toBe(0);
    await page.goto(`${gateway.url}/console/queue/held`);
    const card = page.locator(`.held[data-intent="${retried}"]`);
    expect(await card.textContent()).toContain("transient × maybe_sent");
    expect(await card.textContent()).toContain("the message will show twice");
    mkdirSync(outDir, { recursive: true });
    await page.screenshot({ path: join(outDir, "console-held.png"), fullPage: true });
    await Promise.all([
      page.waitForURL(/\/queue\/intents\/.*done=Retried/),
      card.locator("[data-action=retry]").click(),
    ]);
    await expect
      .poll(() => gateway.runtime.store.getIntent(retried).then((i) => i?.status))
      .toBe("sent");
    expect(shownIn("held-1")).toBe(1);
    await page.reload();
    expect(await page.textContent("#intent-status")).toBe("sent");
    await page.screenshot({ path: join(outDir, "console-intent.png"), fullPage: true });
    // The attempt that left it in doubt, as this gateway saw it settle.
    expect(await page.locator(".timeline li.attempt").first().textContent()).toContain(
      "transient × maybe_sent",
    );

    await page.goto(`${gateway.url}/console/queue/held`);
    await Promise.all([
      page.waitForURL(/done=Cancelled/),
      page.locator(`.held[data-intent="${cancelled}"] [data-action=cancel]`).click(),
    ]);
    expect((await gateway.runtime.store.getIntent(cancelled))?.status).toBe("cancelled");
    await new Promise((r) => setTimeout(r, 300));
    expect(shownIn("held-2")).toBe(0);
    expect(shownIn("held-1")).toBe(1);
  });

  it("refuses a cross-site POST: nothing changes", async () => {
    const id = await heldIntent("held reply three", "held-3");
    const other = await context.newPage();
    const url = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/`;
    await other.goto(url);
    const answer = other.waitForResponse((r) => r.url().includes("/cancel"));
    // What a forged form does: a simple cross-origin POST carrying the browser's cookies.
    await other.evaluate(`fetch(${JSON.stringify(`${gateway.url}/console/queue/intents/${id}/cancel`)}, {
      method: "POST", mode: "no-cors", credentials: "include",
      headers: { "content-type": "application/x-www-form-urlencoded" }, body: "_csrf=guess",
    })`);
    expect((await answer).status()).toBe(403);
    await other.close();
    expect((await gateway.runtime.store.getIntent(id))?.status).toBe("unknown_after_send");
    // Same origin but without the CSRF token: refused too.
    const status = await page.evaluate(
      (intentId) =>
        fetch(`/console/queue/intents/${intentId}/cancel`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "",
        }).then((r) => r.status),
      id,
    );
    expect(status).toBe(403);
    expect((await gateway.runtime.store.getIntent(id))?.status).toBe("unknown_after_send");
  });

  it("shows the queue with live counts and the accounts; nothing secret on any page", async () => {
    await page.goto(`${gateway.url}/console/queue`);
    const held = page.locator("[data-status=held] b");
    const before = Number(await held.textContent());
    await heldIntent("held reply four", "held-4");
    await expect
      .poll(async () => Number(await held.textContent()), { timeout: scaledMs(5_000) })
      .toBe(before + 1);
    await page.screenshot({ path: join(outDir, "console-queue.png"), fullPage: true });
    for (const path of [
      "/console/queue",
      "/console/queue/held",
      "/console/accounts",
      "/console/deadletters",
    ]) {
      await page.goto(`${gateway.url}${path}`);
      const text = await page.content();
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(DEFAULT_QA_BOT.token);
    }
    await page.goto(`${gateway.url}/console/accounts`);
    expect(
      await page.locator(`[data-account="qa/${DEFAULT_QA_BOT.id}"] td.status`).textContent(),
    ).toBe("up");
    await page.goto(view(conversations.get("interrupted") ?? ""));
    await page.screenshot({ path: join(outDir, "console-conversation.png"), fullPage: true });
    await page.goto(view(conversations.get("paged") ?? ""));
    await page.setViewportSize({ width: 900, height: 640 });
    await page.screenshot({ path: join(outDir, "console-docs.png") });
    if (process.env.HERALD_UPDATE_SCREENSHOTS === "1") await page.screenshot({ path: docsShot });
  });
});
