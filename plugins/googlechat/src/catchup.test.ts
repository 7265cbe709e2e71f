/**
 * [H25] item 2 — Google Chat inbound catch-up (CASES C54): the gateway is down 5 minutes (time
 * travel through the messages' `createTime`, no wait); people write 10 messages to the app in
 * 3 conversations. After the restart — a new process on the same SQLite file — `googleapis`
 * lists `spaces.list` and `spaces.messages.list` (`createTime > "…"`) on the fake, while Chat
 * redelivers 2 of the events. → 10 turns, once each, in order per space; the app's own answer
 * (found by the list) is dropped as its own echo through the outbound registry; a space message
 * that does not mention the app is not a turn; a second restart reads nothing new.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually, openTestRun, type TestRun } from "@herald/plugin-sdk/testing";
import { expect, it, onTestFinished } from "vitest";
import { accessTokenCredentials } from "./auth.ts";
import type { GoogleChatCatchUpReport } from "./catchup.ts";
import { createGoogleChatAdapter, createGoogleChatReceiver } from "./index.ts";
import { testConfig } from "./testing/harness.ts";
import {
  ALICE,
  FAKE_ACCESS_TOKEN,
  FAKE_APP,
  FAKE_ENDPOINT_URL,
  FakeGoogleChat,
  type FakeStoredMessage,
  SECOND_APP,
} from "./testing/index.ts";

type Started = {
  run: TestRun;
  receiver: ReturnType<typeof createGoogleChatReceiver> & {
    webhook(request: Request): Promise<Response>;
    caughtUp(): Promise<GoogleChatCatchUpReport | undefined>;
  };
  stop(): Promise<void>;
};

/** One gateway process on the SQLite file: the adapter and the endpoint receiver. */
async function startProcess(fake: FakeGoogleChat, storePath: string): Promise<Started> {
  // No `appUser`: the app's own messages are known by the outbound registry alone.
  const config = testConfig(
    {
      rootUrl: fake.rootUrl,
      accessToken: FAKE_ACCESS_TOKEN,
      audience: { type: "endpoint_url", url: FAKE_ENDPOINT_URL },
      certsUrls: fake.certsUrls,
    },
    { catchUp: { pageSize: 3, readIntervalMs: 5 } },
  );
  const credentials = accessTokenCredentials(FAKE_ACCESS_TOKEN);
  const adapter = createGoogleChatAdapter(config, credentials);
  const run = await openTestRun({ adapters: [adapter], accountId: "main", storePath });
  const receiver = createGoogleChatReceiver(
    config,
    run.sink("googlechat", "main"),
    credentials,
  ) as Started["receiver"];
  fake.connectWebhook((request) => receiver.webhook(request));
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

it("C54: Google Chat delivers once, in order, what was written during a 5-minute outage — redelivered events included, own messages dropped", async () => {
  const fake = await FakeGoogleChat.start();
  onTestFinished(() => fake.close());
  const dir = mkdtempSync(join(tmpdir(), "herald-gchat-catchup-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const storePath = join(dir, "state.db");
  const team = fake.createSpace("SPACE", "team");
  const ops = fake.createSpace("SPACE", "ops");
  const dm = fake.createSpace("DIRECT_MESSAGE", "alice");
  // A space the app is not in: never listed.
  fake.createSpace("SPACE", "elsewhere", [SECOND_APP.name]);

  // Up: one live message per space (the positions), then the app answers in the DM.
  const first = await startProcess(fake, storePath);
  await first.receiver.caughtUp();
  fake.userPost({ space: team.name, text: "@herald hi team" });
  fake.userPost({ space: ops.name, text: "@herald hi ops" });
  fake.userPost({ space: dm.name, text: "hello app" });
  await eventually(
    () => first.run.handled.length,
    (n) => n === 3,
    { what: "the three live messages" },
  );
  const answer = await first.run.runtime.send(
    first.run.message("googlechat", { kind: "direct", id: dm.name }, "an answer from the app"),
    { idempotencyKey: "c54-answer" },
  );
  await first.stop();

  // Down 5 minutes: 10 messages to the app in 3 spaces, and one in a space not addressed to it.
  const t0 = Date.now() + 1_000;
  const written: FakeStoredMessage[] = [];
  const write = (space: string, text: string, minutes: number, mention = true) => {
    const m = fake.store.add({
      space,
      thread: fake.store.newThread(space),
      sender: ALICE,
      text,
      atMs: t0 + minutes * 60_000,
      ...(mention ? { mentions: [FAKE_APP] } : {}),
    });
    if (mention) written.push(m);
    return m;
  };
  write(team.name, "t1", 0.5);
  write(ops.name, "o1", 1);
  write(dm.name, "d1", 1.5, false);
  write(team.name, "t2", 2);
  write(dm.name, "d2", 2.5, false);
  write(ops.name, "o2", 3);
  write(team.name, "t3", 3.5);
  write(dm.name, "d3", 4, false);
  write(ops.name, "o3", 4.5);
  write(team.name, "t4", 5);
  write(team.name, "chatter without a mention", 4.9, false);
  // In a DM every message is for the app (mention or not).
  const dmTexts = ["d1", "d2", "d3"];
  for (const m of fake.store.messages({ space: dm.name }))
    if (dmTexts.includes(fake.store.textOf(m))) written.push(m);

  // Back up: catch-up runs, and Chat redelivers two of the outage's events meanwhile.
  const second = await startProcess(fake, storePath);
  const redelivered = [written[1], written[6]] as FakeStoredMessage[];
  for (const m of redelivered) fake.redeliver(m.name);
  const report = await second.receiver.caughtUp();
  await eventually(
    () => second.run.handled.length,
    (n) => n >= 10,
    { what: "the outage's ten messages" },
  );

  const text = (t: TestRun["handled"][number]) => t.input.body?.markdown;
  expect(second.run.handled.map(text).sort()).toEqual(
    written.map((m) => fake.store.textOf(m)).sort(),
  );
  const order = (space: string) =>
    second.run.handled.filter((t) => t.input.target.id === space).map(text);
  expect(order(team.name)).toEqual(["t1", "t2", "t3", "t4"]);
  expect(order(ops.name)).toEqual(["o1", "o2", "o3"]);
  expect(order(dm.name)).toEqual(["d1", "d2", "d3"]);
  // The app's own answer, found by the list: dropped as its own (registry), never a turn.
  const own = answer.platformMessageIds[0];
  expect(
    second.run.outcomes.find((o) => "message" in o && o.message.platformMessageId === own),
  ).toMatchObject({ status: "dropped", reason: "self" });
  // The redelivered ones: one turn each.
  for (const m of redelivered) {
    const outcomes = second.run.outcomes.filter(
      (o) => "message" in o && o.message.platformMessageId === m.name,
    );
    expect(outcomes.filter((o) => o.status === "processed")).toHaveLength(1);
  }
  expect(report).toMatchObject({ spaces: 3, truncated: 0 });
  await second.stop();

  // A third start: the positions survived the restart; nothing is handled again.
  const third = await startProcess(fake, storePath);
  const again = await third.receiver.caughtUp();
  expect(again).toMatchObject({ spaces: 3, delivered: 0 });
  expect(third.run.handled).toEqual([]);
});

it("C54: a refused spaces.messages.list (no chat.app.messages.readonly) is logged; the live endpoint goes on", async () => {
  const fake = await FakeGoogleChat.start();
  onTestFinished(() => fake.close());
  const dir = mkdtempSync(join(tmpdir(), "herald-gchat-catchup-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const space = fake.createSpace("SPACE", "team");
  fake.faults.failNext(
    { kind: "status", status: 403, description: "Request had insufficient authentication scopes." },
    { op: "list" },
  );
  const started = await startProcess(fake, join(dir, "state.db"));
  expect(await started.receiver.caughtUp()).toBeUndefined();
  expect(started.run.logLines.some((l) => l.includes("catch-up failed"))).toBe(true);
  fake.userPost({ space: space.name, text: "@herald still there?" });
  await eventually(
    () => started.run.handled.map((t) => t.input.body?.markdown),
    (texts) => texts.includes("@herald still there?"),
    { what: "the live message" },
  );
});
