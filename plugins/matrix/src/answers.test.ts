/**
 * Answers the adapter cannot trust and secrets it must not repeat: a `200` without an
 * `event_id` after the homeserver stored the event is replayed with the same txnId (one
 * event), and an access token that a homeserver or proxy echoes in an error never reaches
 * herald's logs or stored failures.
 */
import { eventually } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { openBench } from "./testing/bench.ts";
import { FAKE_BOT } from "./testing/FakeHomeserver.ts";

describe("answers without an event id", () => {
  it.each([
    ["an empty JSON object", "{}", "application/json"],
    ["an event_id that is not one", '{"event_id":42}', "application/json"],
    ["an HTML page with status 200", "<html>ok</html>", "text/html"],
  ])(
    "%s after the event was stored: maybe sent, replayed with the same txnId, one event",
    async (_, body, contentType) => {
      const b = await openBench();
      const { roomId, target } = b.room();
      b.fake.afterApply.push({ status: 200, body, contentType });
      await b.runtime.enqueue(b.say(target, "once"), { idempotencyKey: "no-event-id" });
      const intent = await b.settled("no-event-id");
      expect(intent.status).toBe("sent");
      const events = b.fake.rooms.messagesOf(roomId);
      expect(events.map((e) => e.content.body)).toEqual(["once"]);
      expect(intent.receipt?.platformMessageIds[0]).toContain(events[0]?.event_id);
    },
  );
});

describe("the access token never leaks", () => {
  it("an error echoing the token: absent from the stored failure, the intent and every log line", async () => {
    const b = await openBench({ config: { sync: { pollTimeoutMs: 300, retryDelayMs: 20 } } });
    const { target } = b.room();
    const echo = `invalid request, token ${FAKE_BOT.accessToken}`;
    b.fake.failNext(
      { kind: "status", status: 403, code: "M_FORBIDDEN", description: echo },
      { op: "send" },
    );
    await b.runtime.enqueue(b.say(target, "x"), { idempotencyKey: "leak" });
    const intent = await b.settled("leak");
    expect(intent.status).toBe("failed");
    b.fake.failNext(
      { kind: "status", status: 500, code: "M_UNKNOWN", description: echo },
      { op: "sync", times: 2 },
    );
    await b.startReceiver();
    await eventually(
      () => b.logLines.filter((l) => l.includes("/sync failed")).length,
      (n) => n >= 1,
      { what: "a failed /sync logged" },
    );
    expect(JSON.stringify(intent)).not.toContain(FAKE_BOT.accessToken);
    const leaking = b.logLines.filter((l) => l.includes(FAKE_BOT.accessToken));
    expect(leaking).toEqual([]);
  });
});
