import { createHmac } from "node:crypto";
import { eventually } from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import * as fixtures from "./testing/fixtures.ts";
import { FAKE_BOT, signSlackRequest } from "./testing/index.ts";
import { openSlackRun } from "./testkit.ts";

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = "application/x-www-form-urlencoded";

describe("Events API receiver", () => {
  const bodies = {
    json: {
      type: "application/json",
      body: JSON.stringify(fixtures.envelope(fixtures.channelMessage)),
    },
    form: { type: FORM, body: form(fixtures.slashCommand) },
    "interactivity form": {
      type: FORM,
      body: form({
        payload: JSON.stringify({
          type: "block_actions",
          team: { id: "T00000001" },
          user: { id: "UALICE001" },
          actions: [{ action_id: "approve", value: "yes" }],
          trigger_id: "1.2.3",
        }),
      }),
    },
  } as const;

  for (const [name, { type, body }] of Object.entries(bodies)) {
    it(`${name} body: a bad signature, a stale timestamp and a missing header each get 401 and record nothing`, async () => {
      const run = await openSlackRun(onTestFinished);
      const now = Math.floor(Date.now() / 1_000);
      const cases = {
        forged: signSlackRequest(`${FAKE_BOT.signingSecret}x`, body, now),
        stale: signSlackRequest(FAKE_BOT.signingSecret, body, now - 5 * 60 - 5),
        future: signSlackRequest(FAKE_BOT.signingSecret, body, now + 5 * 60 + 5),
        "missing signature": { "x-slack-request-timestamp": String(now) },
        "missing timestamp": {
          "x-slack-signature": signSlackRequest(FAKE_BOT.signingSecret, body, now)[
            "x-slack-signature"
          ] as string,
        },
        "signed other bytes": signSlackRequest(FAKE_BOT.signingSecret, `${body} `, now),
      };
      for (const [what, headers] of Object.entries(cases)) {
        const response = await run.fake.events.post(FAKE_BOT, body, { contentType: type, headers });
        expect(response?.status, what).toBe(401);
      }
      expect(run.deliveries).toBe(0);
      expect(await run.store.listDeadLetters()).toEqual([]);
      expect(run.handled).toEqual([]);
      // The same body, signed right, is recorded and handled.
      const ok = await run.fake.events.post(FAKE_BOT, body, { contentType: type });
      expect(ok?.status).toBe(200);
      expect(run.deliveries).toBe(1);
    });
  }

  it("verifies the exact raw bytes: unusual spacing and unicode that a re-serialization would change", async () => {
    const run = await openSlackRun(onTestFinished);
    const body = `{ "type":"event_callback" ,"team_id":"T00000001","event_id":"EvX","event":{"type":"message","channel":"C00000001","user":"UALICE001","text":"caf\\u00e9 ☕","ts":"1700000000.000001","channel_type":"channel"}}`;
    const response = await run.fake.events.post(FAKE_BOT, body);
    expect(response?.status).toBe(200);
    await expect.poll(() => run.handled.length).toBe(1);
    expect(run.handled[0]?.input.body?.markdown).toBe("café ☕");
  });

  it("a signed body that is not UTF-8 is dead-lettered, never recorded as lossy text", async () => {
    const run = await openSlackRun(onTestFinished);
    const text = JSON.stringify(
      fixtures.envelope({ ...fixtures.channelMessage, text: "caf__", ts: "1700000000.000009" }),
    );
    const bytes = new TextEncoder().encode(text);
    const at = bytes.indexOf(0x5f);
    bytes.set([0xff, 0xfe], at);
    const now = String(Math.floor(Date.now() / 1_000));
    const signature = `v0=${createHmac("sha256", FAKE_BOT.signingSecret).update(`v0:${now}:`).update(bytes).digest("hex")}`;
    const response = await run.receiver.webhook(
      new Request("http://127.0.0.1/webhooks/slack/main", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-slack-request-timestamp": now,
          "x-slack-signature": signature,
        },
        body: bytes,
      }),
    );
    expect(response.status).toBe(200);
    const [dead] = await eventually(
      () => run.store.listDeadLetters(),
      (d) => d.length > 0,
      { what: "the dead letter" },
    );
    expect(dead?.error).toMatchObject({ code: "HERALD_RECEIVE_INVALID_PAYLOAD", path: "(root)" });
    expect(run.handled).toEqual([]);
  });

  it("answers url_verification with its challenge, only when signed", async () => {
    const run = await openSlackRun(onTestFinished);
    const body = JSON.stringify({
      token: "t",
      challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
      type: "url_verification",
    });
    const response = await run.fake.events.post(FAKE_BOT, body);
    expect(await response?.json()).toEqual({
      challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
    });
    const forged = await run.fake.events.post(FAKE_BOT, body, { headers: {} });
    expect(forged?.status).toBe(401);
    expect(run.deliveries).toBe(0);
  });

  it("a signed slash command (form body) is a message addressed to the bot", async () => {
    const run = await openSlackRun(onTestFinished);
    const response = await run.fake.events.post(FAKE_BOT, form(fixtures.slashCommand), {
      contentType: FORM,
    });
    expect(response?.status).toBe(200);
    await expect.poll(() => run.handled.length).toBe(1);
    expect(run.handled[0]?.input).toMatchObject({
      body: { markdown: "/deploy staging now" },
      target: { kind: "group", id: "C00000001" },
      sender: { id: "UALICE001" },
      mentions: { self: true },
    });
  });

  it("answers within the ack deadline even when recording is slow (Slack retries after 3 s)", async () => {
    const run = await openSlackRun(onTestFinished, {
      receive: { mode: "events", ackDeadlineMs: 200 },
    });
    const store = run.store;
    const original = store.acquireDedupe.bind(store);
    // Recording is held until the test releases it: the answer came at the ack deadline, before
    // recording ended (an ordering, not a duration, so it holds on a busy machine).
    let release: () => void = () => {};
    const recorded = new Promise<void>((resolve) => {
      release = resolve;
    });
    let recordingEnded = false;
    store.acquireDedupe = async (...args: Parameters<typeof original>) => {
      await recorded;
      recordingEnded = true;
      return original(...args);
    };
    onTestFinished(release);
    const channel = run.fake.createChannel().id;
    run.fake.addMessage({ channel, text: "x", user: "UALICE001" });
    const body = JSON.stringify(fixtures.envelope({ ...fixtures.channelMessage, channel }));
    const response = await run.fake.events.post(FAKE_BOT, body);
    expect(recordingEnded).toBe(false);
    expect(response?.status).toBe(503);
    release();
  });
});

describe("one Request URL for several workspaces", () => {
  it("routes each event to its team's account; another workspace's event is ignored by this account", async () => {
    const { createEventsReceiver } = await import("./webhook.ts");
    const seen: Array<{ team: unknown; accountId: string | undefined }> = [];
    const receiver = createEventsReceiver({
      signingSecret: FAKE_BOT.signingSecret,
      config: { maxClockSkewMs: 300_000, ackDeadlineMs: 2_500 },
      accountOfTeam: (team) => ({ T00000002: "second" })[team],
      sink: {
        receive(raw: unknown, source?: { accountId?: string }) {
          seen.push({ team: (raw as { team_id?: unknown }).team_id, accountId: source?.accountId });
          return {
            ack: Promise.resolve({ kind: "accept" }),
            done: Promise.resolve({ status: "ignored" }),
          } as never;
        },
        watermark: () => undefined as never,
        cursor: () => undefined as never,
      } as never,
    });
    for (const team of ["T00000001", "T00000002"]) {
      const body = JSON.stringify({ ...fixtures.envelope(fixtures.channelMessage), team_id: team });
      const response = await receiver.webhook(
        new Request("http://127.0.0.1/webhooks/slack/main", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...signSlackRequest(FAKE_BOT.signingSecret, body),
          },
          body,
        }),
      );
      expect(response.status).toBe(200);
    }
    expect(seen).toEqual([
      { team: "T00000001", accountId: undefined },
      { team: "T00000002", accountId: "second" },
    ]);
    const run = await openSlackRun(onTestFinished);
    const other = { ...fixtures.envelope(fixtures.channelMessage), team_id: "T00000009" };
    expect(
      await run.adapter.receive?.normalize(other, { channel: "slack", receivedAt: 1 }),
    ).toEqual({
      kind: "ignore",
      reason: "other workspace",
      detail: "T00000009",
    });
  });
});
