/**
 * [H25] item 2 — Slack inbound catch-up (CASES C54): the gateway is down 5 minutes (time travel
 * through the messages' `ts`, no wait); people write 10 messages in 3 conversations, one of them
 * a reply in a thread seen before the outage; the bot's own message is among them. After the
 * restart — a new process on the same SQLite file — the real `WebClient` reads
 * `users.conversations`, `conversations.history` and `conversations.replies` on the fake at the
 * configured pace, while Slack retries 2 of the events (same `event_id`, `X-Slack-Retry-Num`).
 * → 10 turns, once each, in order per conversation; the own message is dropped as an echo; a
 * second restart reads nothing new (positions survived).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually, openTestRun, type TestRun } from "@herald/plugin-sdk/testing";
import { expect, it, onTestFinished } from "vitest";
import { advancePosition, type SlackCatchUpReport } from "./catchup.ts";
import { createSlackAdapter, createSlackReceiver } from "./index.ts";
import { testConfig } from "./testing/harness.ts";
import { ALICE, FAKE_BOT, FakeSlack, type FakeSlackMessage } from "./testing/index.ts";

type Started = {
  run: TestRun;
  receiver: ReturnType<typeof createSlackReceiver> & {
    webhook(request: Request): Promise<Response>;
    caughtUp(): Promise<SlackCatchUpReport | undefined>;
  };
  stop(): Promise<void>;
};

/** One gateway process: a test herald on the SQLite file, the adapter, the Events receiver. */
async function startProcess(fake: FakeSlack, storePath: string): Promise<Started> {
  const config = testConfig(
    {
      apiUrl: fake.apiUrl,
      token: FAKE_BOT.token,
      signingSecret: FAKE_BOT.signingSecret,
      unknownSendPolicy: "hold",
    },
    // The pace of history reads: Slack's is one a minute; the fake enforces a shorter one.
    { reconcile: { historyIntervalMs: 40 }, catchUp: { pageLimit: 3 } },
  );
  const adapter = createSlackAdapter(config, { token: FAKE_BOT.token });
  const run = await openTestRun({ adapters: [adapter], accountId: "main", storePath });
  const receiver = createSlackReceiver(
    config,
    run.sink("slack", "main"),
    { signingSecret: FAKE_BOT.signingSecret },
    { catchUp: { token: FAKE_BOT.token } },
  ) as Started["receiver"];
  fake.events.connect(FAKE_BOT, (request) => receiver.webhook(request));
  await receiver.start?.();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await receiver.stop?.();
    await run.close();
  };
  onTestFinished(stop);
  return { run, receiver, stop };
}

it("C54: Slack delivers once, in order, what was written during a 5-minute outage — retried events included, own messages dropped", async () => {
  // The fake answers 429 to a read faster than 30 ms (the adapter paces at 40 ms).
  const fake = await FakeSlack.start({ historyIntervalMs: 30, historyPageLimit: 15 });
  onTestFinished(() => fake.close());
  const dir = mkdtempSync(join(tmpdir(), "herald-slack-catchup-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const storePath = join(dir, "state.db");
  const general = fake.createChannel({ name: "general" });
  const random = fake.createChannel({ name: "random" });
  const dm = fake.createChannel({ type: "im" });
  // A channel the bot is not in: never read.
  const elsewhere = fake.createChannel({ name: "elsewhere", members: [] });

  // Up: one live message per conversation (the positions), one of them a thread root.
  const first = await startProcess(fake, storePath);
  await first.receiver.caughtUp();
  const root = await fake.userPost({ channel: general.id, text: "thread root" });
  await fake.userPost({ channel: general.id, text: "first reply", threadTs: root.ts });
  await fake.userPost({ channel: random.id, text: "before the outage" });
  await fake.userPost({ channel: dm.id, text: "hello bot" });
  await eventually(
    () => first.run.handled.length,
    (n) => n === 4,
    { what: "the four live messages" },
  );
  await first.stop();

  // Down 5 minutes: 10 messages in 3 conversations, plus the bot's own post and a stranger's.
  const t0 = Date.now();
  const at = (minutes: number) => t0 + minutes * 60_000;
  const written: FakeSlackMessage[] = [];
  const write = (channel: string, text: string, minutes: number, threadTs?: string) => {
    const m = fake.addMessage({
      channel,
      text,
      user: ALICE.id,
      name: ALICE.name,
      atMs: at(minutes),
      ...(threadTs ? { threadTs } : {}),
    });
    written.push(m);
    return m;
  };
  write(general.id, "g1", 0.5);
  write(general.id, "g2 (in the thread)", 1, root.ts);
  write(random.id, "r1", 1.5);
  write(dm.id, "d1", 2);
  write(general.id, "g3", 2.5);
  write(random.id, "r2", 3);
  write(dm.id, "d2", 3.5);
  write(random.id, "r3", 4);
  write(general.id, "g4 (in the thread)", 4.5, root.ts);
  write(dm.id, "d3", 5);
  const own = fake.addMessage({
    channel: general.id,
    text: "the bot's own words",
    user: FAKE_BOT.userId,
    bot: FAKE_BOT,
    atMs: at(4.8),
  });
  fake.addMessage({ channel: elsewhere.id, text: "not for us", user: ALICE.id, atMs: at(2) });

  // Back up: catch-up runs, and Slack retries two of the outage's events meanwhile.
  const second = await startProcess(fake, storePath);
  const retried = [written[2], written[6]] as FakeSlackMessage[];
  const retries = await Promise.all(
    retried.map((m, i) =>
      fake.events.deliver(FAKE_BOT, fake.messageEvent(m), `EvRETRY${i}`, { num: 1 }),
    ),
  );
  for (const r of retries) expect(r?.status).toBe(200);
  const report = await second.receiver.caughtUp();
  await eventually(
    () => second.run.handled.length,
    (n) => n >= 10,
    { what: "the outage's ten messages" },
  );

  const texts = second.run.handled.map((t) => t.input.body?.plain);
  expect([...texts].sort()).toEqual(written.map((m) => fake.state.get(m.visibleId)?.text).sort());
  // In order per conversation.
  const order = (channel: string) =>
    second.run.handled.filter((t) => t.input.target.id === channel).map((t) => t.input.body?.plain);
  expect(order(general.id)).toEqual(["g1", "g2 (in the thread)", "g3", "g4 (in the thread)"]);
  expect(order(random.id)).toEqual(["r1", "r2", "r3"]);
  expect(order(dm.id)).toEqual(["d1", "d2", "d3"]);
  // The thread reply kept its thread.
  expect(
    second.run.handled.find((t) => t.input.body?.plain === "g2 (in the thread)")?.input.target,
  ).toMatchObject({ kind: "thread", threadId: root.ts });
  // The own message: dropped as an echo, never a turn.
  const ownRef = `${general.id}:${own.ts}`;
  expect(
    second.run.outcomes.find((o) => "message" in o && o.message.platformMessageId === ownRef),
  ).toMatchObject({ status: "dropped", reason: "self" });
  // The retried ones and the catch-up's copies: one turn each, the other a duplicate or dropped.
  for (const m of retried) {
    const ref = `${m.channel}:${m.ts}`;
    const outcomes = second.run.outcomes.filter(
      (o) => "message" in o && o.message.platformMessageId === ref,
    );
    expect(outcomes.filter((o) => o.status === "processed")).toHaveLength(1);
  }
  expect(report).toMatchObject({ conversations: 3, truncated: 0 });
  expect(report?.delivered).toBeGreaterThanOrEqual(11);
  // Read through the paced budget (the fake answers 429 to a read within 30 ms of the last; one
  // that slips through under load is retried after its Retry-After, never lost).
  for (const name of ["conversations.history", "conversations.replies"]) {
    expect(fake.server.calls.filter((c) => c.path.endsWith(name)).length, name).toBeGreaterThan(0);
  }
  await second.stop();

  // A third start: the positions survived the restart; nothing is handled again.
  const third = await startProcess(fake, storePath);
  const again = await third.receiver.caughtUp();
  expect(again).toMatchObject({ conversations: 3, delivered: 0 });
  expect(third.run.handled).toEqual([]);
});

it("advancePosition keeps the newest ts and the most recently active threads", () => {
  let p = advancePosition(undefined, "100.000001", undefined, 2);
  expect(p).toEqual({ ts: "100.000001" });
  p = advancePosition(p, "99.000001", undefined, 2);
  expect(p.ts).toBe("100.000001");
  p = advancePosition(p, "101.000001", "90.000001", 2);
  p = advancePosition(p, "102.000001", "91.000001", 2);
  p = advancePosition(p, "103.000001", "92.000001", 2);
  expect(p).toEqual({
    ts: "103.000001",
    threads: { "92.000001": "103.000001", "91.000001": "102.000001" },
  });
});
