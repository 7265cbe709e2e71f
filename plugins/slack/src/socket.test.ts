import type { ChannelReceiver } from "@herald/plugin-sdk/channel-message";
import { eventually } from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { slackConfigSchema } from "./config.ts";
import { createSlackReceiver } from "./index.ts";
import { ALICE, FAKE_BOT, FakeSocketMode } from "./testing/index.ts";
import { openSlackRun, type SlackTestRun } from "./testkit.ts";

const APP_TOKEN = "xapp-1-A0000000001-1234567890-socketmodetesttoken";

async function socketRun(handler?: () => Promise<void>): Promise<{
  run: SlackTestRun;
  socket: FakeSocketMode;
  receiver: () => ChannelReceiver;
}> {
  const run = await openSlackRun(onTestFinished, {}, {}, handler ? { handler } : {});
  const socket = new FakeSocketMode(run.fake, [{ appToken: APP_TOKEN, botToken: FAKE_BOT.token }]);
  await socket.listen();
  const receivers: ChannelReceiver[] = [];
  onTestFinished(async () => {
    for (const r of receivers) await r.stop?.();
    await socket.close();
  });
  const config = slackConfigSchema.parse({
    slackApiUrl: run.fake.apiUrl,
    receive: { mode: "socket" },
  });
  return {
    run,
    socket,
    receiver: () => {
      const r = createSlackReceiver(config, run.sink("slack", "main"), { appToken: APP_TOKEN });
      receivers.push(r);
      return r;
    },
  };
}

function payloadOf(run: SlackTestRun, channel: string, ts: string) {
  const m = run.fake.message(channel, ts);
  if (!m) throw new Error("no message");
  return run.fake.events.envelope(FAKE_BOT, run.fake.messageEvent(m));
}

describe("Socket Mode receiver (@slack/socket-mode against FakeSocketServer)", () => {
  it("receives events_api envelopes and acks each once it is recorded", async () => {
    const { run, socket, receiver } = await socketRun();
    const r = receiver();
    await r.start?.();
    expect(r.health?.().state).toBe("up");
    const channel = run.fake.createChannel().id;
    const m = run.fake.addMessage({ channel, text: "over the socket", user: ALICE.id });
    const id = socket.deliver(payloadOf(run, channel, m.ts));
    await eventually(
      () => socket.acked,
      (a) => a.includes(id),
    );
    expect(run.handled.map((h) => h.input.body?.markdown)).toEqual(["over the socket"]);
  });

  it("a dropped connection turns the receiver down (the gateway reconnects); a redelivery after the reconnect is handled once", async () => {
    const { run, socket, receiver } = await socketRun();
    const first = receiver();
    await first.start?.();
    const channel = run.fake.createChannel().id;
    const m = run.fake.addMessage({ channel, text: "once only", user: ALICE.id });
    const payload = payloadOf(run, channel, m.ts);
    socket.deliver(payload);
    await eventually(
      () => run.handled.length,
      (n) => n === 1,
    );
    await socket.socket.dropConnections();
    await eventually(
      () => first.health?.().state,
      (s) => s === "down",
    );
    // The gateway's supervisor opens the account again: a new receiver, a new connection.
    const second = receiver();
    await second.start?.();
    const again = socket.deliver(payload);
    await eventually(
      () => socket.acked,
      (a) => a.includes(again),
    );
    await eventually(
      () => run.outcomes.map((o) => o.status),
      (s) => s.includes("duplicate"),
    );
    expect(run.handled).toHaveLength(1);
    expect(socket.socket.connections).toHaveLength(2);
  });

  it("C44 (a): Slack sends an acked envelope again (retry_attempt 1, retry_reason timeout, new envelope id): handled once, acked again", async () => {
    const { run, socket, receiver } = await socketRun();
    await receiver().start?.();
    const channel = run.fake.createChannel().id;
    const m = run.fake.addMessage({ channel, text: "just once", user: ALICE.id });
    const first = socket.deliver(payloadOf(run, channel, m.ts));
    await eventually(
      () => socket.acked,
      (a) => a.includes(first),
    );
    const again = socket.redeliver(first, "timeout");
    await eventually(
      () => socket.acked,
      (a) => a.includes(again),
    );
    await eventually(
      () => run.outcomes.map((o) => o.status),
      (s) => s.includes("duplicate"),
    );
    expect(run.handled.map((h) => h.input.body?.markdown)).toEqual(["just once"]);
  });

  it("C44 (a): redeliveries while the first delivery is still being handled (retry_attempt 1, then 2): one turn; Slack's try after the turn is acked", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    onTestFinished(() => release());
    const { run, socket, receiver } = await socketRun(() => gate);
    await receiver().start?.();
    const channel = run.fake.createChannel().id;
    const m = run.fake.addMessage({ channel, text: "slow handler", user: ALICE.id });
    const first = socket.deliver(payloadOf(run, channel, m.ts));
    await eventually(
      () => run.handled.length,
      (n) => n === 1,
    );
    const second = socket.redeliver(first, "timeout");
    release();
    await eventually(
      () => socket.acked,
      (a) => a.includes(first),
    );
    // Slack keeps sending what it saw no ack for; the last try finds the turn done.
    const third = socket.redeliver(second, "timeout");
    await eventually(
      () => socket.acked,
      (a) => a.includes(third),
    );
    expect(run.handled).toHaveLength(1);
    expect(run.handled[0]?.input.body?.markdown).toBe("slow handler");
  });

  it("a rejected app-level token fails the start and leaves the receiver down", async () => {
    const { run } = await socketRun();
    const config = slackConfigSchema.parse({
      slackApiUrl: run.fake.apiUrl,
      receive: { mode: "socket" },
    });
    const r = createSlackReceiver(config, run.sink("slack", "main"), { appToken: "xapp-wrong" });
    await expect(r.start?.()).rejects.toThrow();
    expect(r.health?.().state).toBe("down");
  });
});

describe("Socket Mode catch-up (C54)", () => {
  it("C54: Socket Mode never redelivers what was sent while the gateway was down: catch-up reads it, once, before the live message that follows", async () => {
    const { run, socket } = await socketRun();
    const config = slackConfigSchema.parse({
      slackApiUrl: run.fake.apiUrl,
      receive: { mode: "socket" },
      reconcile: { historyIntervalMs: 20 },
    });
    const make = () =>
      createSlackReceiver(
        config,
        run.sink("slack", "main"),
        { appToken: APP_TOKEN },
        { catchUp: { token: FAKE_BOT.token } },
      ) as ChannelReceiver & { caughtUp(): Promise<unknown> };
    const channel = run.fake.createChannel().id;
    const first = make();
    await first.start?.();
    await first.caughtUp();
    const before = run.fake.addMessage({ channel, text: "before", user: ALICE.id });
    socket.deliver(payloadOf(run, channel, before.ts));
    await eventually(
      () => run.handled.length,
      (n) => n === 1,
    );
    await first.stop?.();

    // Down: two messages nobody delivers (Socket Mode keeps nothing for a closed connection).
    const t0 = Date.now();
    run.fake.addMessage({ channel, text: "missed 1", user: ALICE.id, atMs: t0 + 60_000 });
    run.fake.addMessage({ channel, text: "missed 2", user: ALICE.id, atMs: t0 + 120_000 });
    const second = make();
    onTestFinished(() => second.stop?.());
    await second.start?.();
    // A live message right after the restart waits behind the catch-up of its channel.
    const after = run.fake.addMessage({
      channel,
      text: "after",
      user: ALICE.id,
      atMs: t0 + 180_000,
    });
    socket.deliver(payloadOf(run, channel, after.ts));
    await second.caughtUp();
    await eventually(
      () => run.handled.length,
      (n) => n >= 4,
    );
    expect(run.handled.map((h) => h.input.body?.markdown)).toEqual([
      "before",
      "missed 1",
      "missed 2",
      "after",
    ]);
  });
});
