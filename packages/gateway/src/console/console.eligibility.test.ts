/**
 * [H18] review: the conversation view's branch placement on more ledger shapes than the browser
 * test has (seed `completed-turn-boundaries.md`), over real HTTP requests to the console with
 * raw ledger events in a real SQLite store: a tool result after the assistant content in the
 * same turn, a reasoning-only tail, an error tail, a user-only turn, windows that start and/or
 * end inside a turn, a node recorded after its turn's `turn/end`, interleaved turns, and forks
 * of forks. Eligibility must come only from the durable `turn/end`.
 */
import { createMessageRuntime, SqliteStateStore, silentLogger, TURN_EVENT } from "@herald/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GatewayMetrics } from "../http/metrics.ts";
import { createHttpApp } from "../http/server.ts";
import { AttemptLog } from "./attempts.ts";
import { csrfToken, SESSION_COOKIE, sessionValue } from "./auth.ts";
import { type ConsoleApp, createConsoleApp } from "./console.ts";
import { DEFAULT_CONSOLE_SESSION_TTL_MS } from "./deps.ts";

const TOKEN = "a-console-token-of-some-length";
const ORIGIN = "http://127.0.0.1:8787";
const signedIn = { cookie: `${SESSION_COOKIE}=${sessionValue(TOKEN, Date.now())}` };

let store: SqliteStateStore;
let consoleApp: ConsoleApp;
const app = () =>
  createHttpApp({
    store,
    metrics: new GatewayMetrics(store, silentLogger),
    receivers: new Map(),
    logger: silentLogger,
    console: consoleApp,
  });

beforeEach(() => {
  store = new SqliteStateStore({ path: ":memory:" });
  const runtime = createMessageRuntime({ store, adapters: [], logger: silentLogger });
  consoleApp = createConsoleApp({
    token: TOKEN,
    base: "/console",
    store,
    runtime,
    accounts: () => [],
    redact: (text) => text,
    logger: silentLogger,
    attempts: new AttemptLog(),
    clock: () => Date.now(),
    sessionTtlMs: DEFAULT_CONSOLE_SESSION_TTL_MS,
  });
});
afterEach(async () => {
  consoleApp.close();
  await store.close();
});

type Step =
  | ["start", string]
  | ["end", string, ("completed" | "failed" | "aborted" | "interrupted")?]
  | [string, string, Record<string, unknown>];
const user = (turn: string, text: string): Step => [turn, "user", { text }];
const assistant = (turn: string, text: string, extra = {}): Step => [
  turn,
  "assistant",
  { text, ...extra },
];

/** Appends raw ledger events to `conversation`, seq 1… in order. */
async function ledger(conversation: string, steps: Step[]) {
  let at = 1_700_000_000_000;
  await store.appendLedger(
    steps.map((s, n) => {
      at += 1000;
      if (s[0] === "start")
        return {
          conversation,
          type: TURN_EVENT.start,
          turnId: s[1],
          at,
          data: { rootMessageId: `m-${s[1]}` },
        };
      if (s[0] === "end")
        return {
          conversation,
          type: TURN_EVENT.end,
          turnId: s[1],
          at,
          data: { outcome: s[2] ?? "completed" },
        };
      const [turnId, role, fields] = s as [string, string, Record<string, unknown>];
      return {
        conversation,
        type: TURN_EVENT.message,
        turnId,
        at,
        data: { id: `n${n}`, at, role, ...fields },
      };
    }) as never,
  );
}

/** The nodes of one page of the view: `seq:role` with `*` on those offering branch. */
async function view(conversation: string, q: Record<string, string> = {}) {
  const res = await app().request(
    `/console/conversations/view?${new URLSearchParams({ c: conversation, ...q })}`,
    { headers: signedIn },
  );
  expect(res.status).toBe(200);
  const page = await res.text();
  const nodes = [
    ...page.matchAll(
      /<article class="node[^"]*" data-seq="(\d+)" data-role="([^"]+)" data-branch="(yes|no)"/g,
    ),
  ].map(([, seq, role, branch]) => `${seq}:${role}${branch === "yes" ? "*" : ""}`);
  // Every node keeps copy and clock, branch or not.
  const articles = page.split('<article class="node').slice(1);
  for (const a of articles) {
    expect(a).toContain("data-copy");
    expect(a).toContain('<time class="clock"');
  }
  return { nodes, page };
}

async function fork(conversation: string, atSeq: number): Promise<string> {
  const res = await app().request(`${ORIGIN}/console/conversations/fork`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN, ...signedIn },
    body: new URLSearchParams({
      c: conversation,
      atSeq: String(atSeq),
      _csrf: csrfToken(TOKEN),
    }).toString(),
  });
  expect(res.status).toBe(303);
  return new URL(res.headers.get("location") ?? "", ORIGIN).searchParams.get("c") ?? "";
}

describe("conversation view: branch only on a completed turn's tail", () => {
  it("a tool result after the assistant content in the same turn takes branch away", async () => {
    await ledger("c", [
      ["start", "t1"],
      user("t1", "q"),
      assistant("t1", "answer"),
      ["t1", "tool", { name: "Read", input: "a.ts", content: "42 lines" }],
      ["end", "t1"],
    ]);
    expect((await view("c")).nodes).toEqual(["2:user", "3:assistant", "4:tool"]);
  });

  it("a reasoning-only tail, an error tail, a whitespace answer: no branch in the turn", async () => {
    await ledger("c", [
      ["start", "t1"],
      user("t1", "q1"),
      assistant("t1", "a1"),
      ["t1", "reasoning", { text: "" }],
      ["end", "t1"],
      ["start", "t2"],
      user("t2", "q2"),
      assistant("t2", "a2"),
      ["t2", "error", { text: "model failed" }],
      ["end", "t2", "failed"],
      ["start", "t3"],
      user("t3", "q3"),
      assistant("t3", "   "),
      ["end", "t3"],
    ]);
    expect((await view("c")).nodes).toEqual([
      "2:user",
      "3:assistant",
      "4:reasoning",
      "7:user",
      "8:assistant",
      "9:error",
      "12:user",
      "13:assistant",
    ]);
  });

  it("a user-only turn and an interrupted answer with text are branchable tails", async () => {
    await ledger("c", [
      ["start", "t1"],
      user("t1", "just noting"),
      ["end", "t1"],
      ["start", "t2"],
      user("t2", "q"),
      assistant("t2", "partial answ", { interrupted: true }),
      ["end", "t2", "aborted"],
    ]);
    expect((await view("c")).nodes).toEqual(["2:user*", "5:user", "6:assistant*"]);
  });

  it("windows that start inside a turn, end inside one, or both", async () => {
    await ledger("c", [
      ["start", "t1"], // 1
      user("t1", "q1"), // 2
      ["t1", "tool", { name: "Search", content: "hits" }], // 3
      assistant("t1", "a1"), // 4
      ["end", "t1"], // 5
      ["start", "t2"], // 6
      user("t2", "q2"), // 7
      assistant("t2", "a2"), // 8
      ["end", "t2"], // 9
    ]);
    // Starts inside t1 (no turn/start, no user bubble), ends inside t2 (before its turn/end).
    const mid = await view("c", { to: "8", size: "5" });
    expect(mid.nodes).toEqual(["4:assistant*", "7:user", "8:assistant"]);
    expect(mid.page).toContain("began before this window");
    expect(mid.page).toContain("no turn/end in this window");
    // Both ends inside one turn: t2 is open in this window, whatever comes later.
    expect((await view("c", { to: "8", size: "2" })).nodes).toEqual(["7:user", "8:assistant"]);
    // Only the turn/end of t1 in the window, its tail outside: nothing to branch.
    expect((await view("c", { to: "6", size: "2" })).nodes).toEqual([]);
    // The window that leaves out t2's user bubble still branches t1 at its tail.
    expect((await view("c", { to: "5", size: "3" })).nodes).toEqual(["3:tool", "4:assistant*"]);
  });

  it("a node recorded after its turn's turn/end neither takes nor gets branch", async () => {
    await ledger("c", [
      ["start", "t1"],
      user("t1", "q"),
      assistant("t1", "a"),
      ["end", "t1"],
      assistant("t1", "late text"),
    ]);
    const { nodes, page } = await view("c");
    expect(nodes).toEqual(["2:user", "3:assistant*", "5:assistant"]);
    // It is drawn after the turn's end line, not above it as if it were the tail.
    expect(page.indexOf('data-seq="5"')).toBeGreaterThan(page.indexOf('data-end-seq="4"'));
    expect(page).toContain("recorded after this turn's turn/end");
  });

  it("interleaved turns each get their own tail", async () => {
    await ledger("c", [
      ["start", "a"],
      ["start", "b"],
      user("a", "qa"),
      user("b", "qb"),
      assistant("b", "ab"),
      ["end", "b"],
      assistant("a", "aa"),
      ["t-none", "log", { text: "x" }],
      ["end", "a"],
    ]);
    expect((await view("c")).nodes).toEqual([
      "3:user",
      "7:assistant*",
      "4:user",
      "5:assistant*",
      "8:log",
    ]);
  });

  it("a fork of a fork ends at the turn's end and branches at the same tail", async () => {
    await ledger("chat/qa/main/room", [
      ["start", "t1"],
      user("t1", "q1"),
      assistant("t1", "a1"),
      ["end", "t1"],
      ["start", "t2"],
      user("t2", "q2"),
      assistant("t2", "a2"),
      ["end", "t2"],
    ]);
    const first = await fork("chat/qa/main/room", 7);
    const second = await fork(first, 4); // a seq inside t1 in the fork: through t1's turn/end
    const { nodes, page } = await view(second);
    expect(nodes.map((n) => n.replace(/^\d+:/, ""))).toEqual(["user", "assistant*"]);
    expect(page).toContain(`Forked from ${first}`);
    const events = await store.readLedger({ conversation: second, limit: 100 });
    expect(events.at(-1)?.type).toBe(TURN_EVENT.end);
    expect(events.filter((e) => e.type === TURN_EVENT.end)).toHaveLength(1);
  });
});
