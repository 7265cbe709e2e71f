/**
 * Exactly-once delivery by transaction id through herald's durable queue, over the real
 * matrix-js-sdk against the fake homeserver: a proxy 502 after the event was stored, a client
 * timeout after the store and a restart before the retry (C30); 429 with `retry_after_ms` and
 * `Retry-After` on sends, edits and redactions (C04).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { txnIdOf } from "./send.ts";
import { openBench } from "./testing/bench.ts";
import { FAKE_BOT } from "./testing/FakeHomeserver.ts";

/** The txnIds of the send PUTs the fake saw, in order. */
function sendTxnIds(calls: readonly { method: string; path: string }[], kind = "send"): string[] {
  return calls
    .filter((c) => c.method === "PUT" && c.path.includes(`/${kind}/`))
    .map((c) => decodeURIComponent(c.path.slice(c.path.lastIndexOf("/") + 1)));
}

const eventsOf = (b: Awaited<ReturnType<typeof openBench>>, roomId: string) =>
  b.fake.rooms.events.filter((e) => e.room_id === roomId && e.type === "m.room.message");

/** The lookup before a retry cannot read the room: the retry relies on its txnId alone. */
const lookupsFail = (b: Awaited<ReturnType<typeof openBench>>) =>
  b.fake.failNext(
    { kind: "status", status: 500, code: "M_UNKNOWN" },
    { op: "messages", times: 20 },
  );

describe("C30 · retry with the same txnId", () => {
  it("C30: the fake stores $e1 and answers 502: the retry finds $e1 by its unsigned.transaction_id and sends nothing again", async () => {
    const b = await openBench();
    const { roomId, target } = b.room();
    b.fake.afterApply.push({ status: 502, body: "Bad Gateway", contentType: "text/html" });
    await b.runtime.enqueue(b.say(target, "found, not resent"), { idempotencyKey: "c30-found" });
    const intent = await b.settled("c30-found");
    expect(intent.status).toBe("sent");
    const events = eventsOf(b, roomId);
    expect(events.map((e) => e.content.body)).toEqual(["found, not resent"]);
    expect(sendTxnIds(b.fake.server.calls)).toHaveLength(1);
    expect(intent.receipt?.platformMessageIds).toEqual([
      `${roomId.replace(":", "%3A")}:${events[0]?.event_id}`,
    ]);
  });

  it("C30: the fake stores $e1 and answers 502 with an HTML body; the room cannot be read: the retry is PUT …/txnA again and gets $e1, one event", async () => {
    const b = await openBench();
    const { roomId, target } = b.room();
    lookupsFail(b);
    b.fake.afterApply.push({
      status: 502,
      body: "<html><body><h1>502 Bad Gateway</h1></body></html>",
      contentType: "text/html",
    });
    await b.runtime.enqueue(b.say(target, "exactly once"), { idempotencyKey: "c30-502" });
    const intent = await b.settled("c30-502");
    expect(intent.status).toBe("sent");
    const events = eventsOf(b, roomId);
    expect(events.map((e) => e.content.body)).toEqual(["exactly once"]);
    const txnIds = sendTxnIds(b.fake.server.calls);
    expect(txnIds).toHaveLength(2);
    expect(new Set(txnIds).size).toBe(1);
    // Derived from the intent's key, stored with the intent before the first attempt.
    expect(txnIds[0]).toBe(txnIdOf(`${intent.idempotencyKey}#0`, "send", intent.id));
    expect(intent.receipt?.platformMessageIds).toEqual([
      `${roomId.replace(":", "%3A")}:${events[0]?.event_id}`,
    ]);
  });

  it("C30: a client timeout after the store: the replay carries the same txnId and gets the stored event", async () => {
    const b = await openBench({ config: { requestTimeoutMs: 300 } });
    const { roomId, target } = b.room();
    b.fake.failNext({ kind: "delay", delayMs: 900 }, { op: "send" });
    await b.runtime.enqueue(b.say(target, "late but once"), { idempotencyKey: "c30-timeout" });
    const intent = await b.settled("c30-timeout", 10_000);
    expect(intent.status).toBe("sent");
    // The late first call lands after the replay did: wait for both, then count events.
    const txnIds = await eventually(
      () => sendTxnIds(b.fake.server.calls),
      (ids) => ids.length >= 2,
      { what: "the late call and the replay" },
    );
    expect(eventsOf(b, roomId).map((e) => e.content.body)).toEqual(["late but once"]);
    expect(new Set(txnIds).size).toBe(1);
    expect(intent.receipt?.platformMessageIds[0]).toContain(eventsOf(b, roomId)[0]?.event_id);
  });

  it("C30: a process restart before the retry: the new process sends PUT …/txnA and gets $e1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "herald-matrix-c30-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const storePath = join(dir, "state.db");
    // First process: the answer is lost (502 after the store); its retry is far away.
    const first = await openBench({
      storePath,
      closeFake: false,
      delivery: { pollIntervalMs: 10, backoff: { baseMs: 1_500, maxMs: 1_500, maxAttempts: 8 } },
    });
    const { roomId, target } = first.room();
    lookupsFail(first);
    first.fake.afterApply.push({ status: 502, body: "Bad Gateway", contentType: "text/html" });
    await first.runtime.enqueue(first.say(target, "across a restart"), {
      idempotencyKey: "c30-restart",
    });
    const failed = await eventually(
      () => first.intent("c30-restart"),
      (i) => (i?.attempt ?? 0) >= 1 && i?.failure !== undefined,
      { what: "the first attempt failed" },
    );
    expect(failed?.failure).toMatchObject({ kind: "transient", evidence: "maybe_sent" });
    await first.close();
    // Second process on the same store, the same fake: the replay dedupes.
    const second = await openBench({ storePath, on: first.fake });
    onTestFinished(() => first.fake.close());
    const intent = await second.settled("c30-restart", 15_000);
    expect(intent.status).toBe("sent");
    expect(eventsOf(second, roomId).map((e) => e.content.body)).toEqual(["across a restart"]);
    const txnIds = sendTxnIds(second.fake.server.calls);
    expect(txnIds).toHaveLength(2);
    expect(new Set(txnIds).size).toBe(1);
  });
});

describe("C04 · 429 on Matrix send", () => {
  it.each([
    ["retry_after_ms in the body", "body"],
    ["a Retry-After header", "header"],
  ] as const)(
    "C04: waits at least the wait of %s and retries with the same txnId: one event",
    async (_, via) => {
      const b = await openBench({ fake: { retryAfterVia: via } });
      const { roomId, target } = b.room();
      const waitMs = via === "body" ? 1_120 : 2_000; // the header carries whole seconds
      b.fake.failNext({ kind: "rate_limit", retryAfterMs: 1_120, via }, { op: "send" });
      const started = Date.now();
      await b.runtime.enqueue(b.say(target, "after the limit"), { idempotencyKey: `c04-${via}` });
      const intent = await b.settled(`c04-${via}`);
      expect(intent.status).toBe("sent");
      expect(Date.now() - started).toBeGreaterThanOrEqual(waitMs - 20);
      expect(eventsOf(b, roomId).map((e) => e.content.body)).toEqual(["after the limit"]);
      const txnIds = sendTxnIds(b.fake.server.calls);
      expect(txnIds).toHaveLength(2);
      expect(new Set(txnIds).size).toBe(1);
    },
  );

  it("C04: edits and redactions take the same path: each waits the retry_after_ms, one replacement, one redaction", async () => {
    const b = await openBench();
    const { roomId, target } = b.room();
    const sent = await b.runtime.send(b.say(target, "v1"));
    b.fake.failNext({ kind: "rate_limit", retryAfterMs: 1_120, via: "body" }, { op: "edit" });
    let started = Date.now();
    await b.runtime.edit(sent, b.say(target, "v2"));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_100);
    const edits = b.fake.rooms.events.filter(
      (e) =>
        (e.content["m.relates_to"] as { rel_type?: string } | undefined)?.rel_type === "m.replace",
    );
    expect(edits).toHaveLength(1);
    b.fake.failNext({ kind: "rate_limit", retryAfterMs: 1_120, via: "body" }, { op: "delete" });
    started = Date.now();
    await b.runtime.delete(sent, b.say(target, ""));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_100);
    expect(b.fake.rooms.events.filter((e) => e.type === "m.room.redaction")).toHaveLength(1);
    expect(b.fake.visible(roomId)).toEqual([]);
    const redactTxns = sendTxnIds(b.fake.server.calls, "redact");
    expect(redactTxns).toHaveLength(2);
    expect(new Set(redactTxns).size).toBe(1);
  });

  it.each([400, 403])(
    "C45: a proxy answering M_LIMIT_EXCEEDED with HTTP %i: the sends wait and all land once, none failed as a refusal",
    async (status) => {
      const b = await openBench({
        fake: { rateLimit: { limit: 1, windowMs: 400 }, rateLimitStatus: status },
      });
      const { roomId, target } = b.room();
      for (const i of [1, 2, 3]) {
        await b.runtime.enqueue(b.say(target, `p${i}`), { idempotencyKey: `c45-${status}-${i}` });
      }
      for (const i of [1, 2, 3]) {
        expect((await b.settled(`c45-${status}-${i}`)).status).toBe("sent");
      }
      expect(eventsOf(b, roomId).map((e) => e.content.body)).toEqual(["p1", "p2", "p3"]);
      expect(b.fake.server.calls.some((c) => c.outcome === `ok ${status}`)).toBe(true);
    },
  );

  it("the fake's own per-user limit answers M_LIMIT_EXCEEDED; the room's sends wait and all land once", async () => {
    const b = await openBench({ fake: { rateLimit: { limit: 2, windowMs: 600 } } });
    const { roomId, target } = b.room();
    for (const i of [1, 2, 3, 4]) {
      await b.runtime.enqueue(b.say(target, `m${i}`), { idempotencyKey: `rl-${i}` });
    }
    for (const i of [1, 2, 3, 4]) expect((await b.settled(`rl-${i}`)).status).toBe("sent");
    expect(eventsOf(b, roomId).map((e) => e.content.body)).toEqual(["m1", "m2", "m3", "m4"]);
    expect(b.fake.server.calls.some((c) => c.outcome === "ok 429")).toBe(true);
    expect(eventsOf(b, roomId).every((e) => e.sender === FAKE_BOT.userId)).toBe(true);
  });
});
