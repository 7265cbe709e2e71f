/**
 * A thread anchor the platform rejects (case C35: a Google Chat message name passed as a thread
 * name answers 400 "invalid thread resource name"): the log falls back to the top level once,
 * with the reason logged, and the permanent 4xx is never retried in a loop.
 */
import { afterEach, expect, it } from "vitest";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { ActivityLogForwarder } from "./ActivityLogForwarder.ts";
import { captureLogger, type LogLine } from "./testing/suiteHarness.ts";

let runtime: MessageRuntime | undefined;
afterEach(async () => {
  await runtime?.stop(1_000);
  runtime = undefined;
});

it("a rejected anchor sends the turn's activity top-level once, with the reason, never in a loop (C35)", async () => {
  const platform = new FakePlatform({ namedThreads: true });
  runtime = createMessageRuntime({
    store: new SqliteStateStore({ path: ":memory:" }),
    adapters: [createFakeAdapter({ threads: true, transport: inProcessTransport(platform) })],
    delivery: { pollIntervalMs: 5 },
    live: { recoveryIntervalMs: 0 },
  });
  await runtime.start();
  const lines: LogLine[] = [];
  const log = new ActivityLogForwarder(runtime, {
    logger: captureLogger(lines),
    editDebounceMs: 5,
  });
  const posted = platform.postAsUser({ chat: "space-1", text: "status?" });
  const inbound = {
    id: "in-1",
    channel: "qa",
    direction: "inbound" as const,
    target: { kind: "group" as const, id: "space-1" },
    body: { markdown: posted.text },
    platformMessageId: posted.id,
    // A buggy normalize: the message's own name where the thread's belongs.
    threadAnchor: { threadId: posted.id },
  };
  await runtime.turn(inbound, async (turn) => {
    await turn.activity({ role: "tool", name: "Read", input: "status.json" });
    await log.idle();
    await turn.activity({ role: "tool", name: "Grep", input: "error" });
    await log.idle();
    await turn.reply("All green.");
  });
  await log.close();
  const bot = platform.visible("space-1").filter((m) => m.author === undefined);
  expect(bot.map((m) => m.thread)).toEqual([undefined, undefined, undefined]);
  expect(bot.map((m) => m.text).join("\n")).toMatch(/Read\(status\.json\)[\s\S]*Grep\(error\)/);
  expect(bot.at(-1)?.text).toBe("All green.");
  const intoThread = platform.calls.filter((c) => c.op === "send" && c.thread !== undefined);
  expect(intoThread.map((c) => c.outcome)).toEqual(["status 400"]); // once, not retried
  const error = lines.find((l) => l.level === "error" && /open the activity log/.test(l.msg));
  expect(JSON.stringify(error?.obj)).toMatch(/invalid thread resource name/);
});
