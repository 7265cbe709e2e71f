import { describe, expect, it } from "vitest";
import { openTestRun } from "../testing/testRun.ts";
import { defineChannelMessageAdapter } from "./plugin.ts";
import { constantTimeEqual } from "./util/verify.ts";
import { webhookReceiver } from "./webhook.ts";

const adapter = defineChannelMessageAdapter({
  id: "hook",
  capabilities: { text: { maxLength: 100 } },
  render: {
    render: () => {
      throw new Error("not sent in this test");
    },
  },
  send: {
    send: async () => {
      throw new Error("not sent in this test");
    },
    classifyError: (e) => ({ kind: "unknown", evidence: "maybe_sent", message: String(e) }),
  },
  receive: {
    normalize: (raw) => {
      const e = raw as { id?: unknown; text?: unknown };
      if (typeof e?.id !== "string" || typeof e.text !== "string")
        throw new TypeError("not an event");
      return {
        id: `hook:${e.id}`,
        channel: "hook",
        direction: "inbound",
        target: { kind: "direct", id: "c1" },
        sender: { id: "u1" },
        body: { markdown: e.text },
        platformMessageId: e.id,
      };
    },
  },
});

async function setup() {
  const run = await openTestRun({ adapters: [adapter] });
  const receiver = webhookReceiver({
    sink: run.sink("hook"),
    authenticate: (request) =>
      constantTimeEqual(request.headers.get("x-token") ?? "", "secret-token"),
  });
  const post = (body: string, token = "secret-token") =>
    receiver.webhook(
      new Request("http://gateway/webhooks/hook/main", {
        method: "POST",
        headers: { "x-token": token },
        body,
      }),
    );
  return { run, post };
}

describe("webhookReceiver", () => {
  it("answers 401 to an unauthenticated request and records nothing", async () => {
    const { run, post } = await setup();
    expect((await post('{"id":"1","text":"hi"}', "wrong")).status).toBe(401);
    expect(run.outcomes).toEqual([]);
    await run.close();
  });

  it("hands an authenticated event to the sink and answers 200 once recorded; a redelivery is a duplicate", async () => {
    const { run, post } = await setup();
    expect((await post('{"id":"1","text":"hi"}')).status).toBe(200);
    expect((await post('{"id":"1","text":"hi"}')).status).toBe(200);
    await run.close();
    expect(run.handled.map((h) => h.input.body?.markdown)).toEqual(["hi"]);
    expect(run.outcomes.map((o) => o.status).sort()).toEqual(["duplicate", "processed"]);
  });

  it("hands a body that is not JSON over as text, so it is dead-lettered, not dropped", async () => {
    const { run, post } = await setup();
    await post("not json");
    await run.close();
    expect(run.outcomes.map((o) => o.status)).toEqual(["dead_lettered"]);
  });
});
