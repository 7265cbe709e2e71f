/**
 * The send path's fallbacks take exactly the error they are for ([H22] item 3: "a fallback that
 * drops a field on the wrong error"): the reply reference is dropped only for a 50035 naming
 * `message_reference`, and the resend keeps everything else (content, nonce); a thread is started
 * only for 10003 on a thread target whose id is a message id. Real `@discordjs/rest` against the
 * fake Discord, asserted on what the fake received and shows.
 */
import { describe, expect, it } from "vitest";
import { openBench } from "./testing/bench.ts";
import { ALICE } from "./testing/FakeDiscord.ts";

const invalidForm = (field: string, code: string) => ({
  kind: "status" as const,
  status: 400,
  body: {
    code: 50035,
    message: "Invalid Form Body",
    errors: { [field]: { _errors: [{ code, message: `${field} rejected` }] } },
  },
});

async function replyBench() {
  const b = await openBench();
  const { channel, target } = b.channel();
  const { message: question } = b.fake.post({ channelId: channel.id, author: ALICE, text: "q" });
  const reply = (text: string) =>
    b.message(target, text, {
      relation: { kind: "reply", replyToId: `${channel.id}:${question.json.id}` },
    });
  const posts = () => b.fake.requests.filter((r) => r.method === "POST");
  return { b, channel, target, question, reply, posts };
}

describe("the reply reference fallback", () => {
  it("a 50035 on another field (content) keeps the reference and fails: invalid_payload, one request, nothing posted", async () => {
    const { b, channel, reply, posts } = await replyBench();
    b.fake.failNext(invalidForm("content", "BASE_TYPE_MAX_LENGTH"), { op: "send" });
    await b.runtime.enqueue(reply("answer"), { idempotencyKey: "content" });
    const intent = await b.settled("content");
    expect(intent.status).toBe("failed");
    expect(intent.failure).toMatchObject({ kind: "invalid_payload", platformCode: "50035" });
    expect(intent.failure?.message).toContain("content: BASE_TYPE_MAX_LENGTH");
    expect(posts()).toHaveLength(1);
    expect(b.fake.messages(channel.id).map((m) => m.text)).toEqual(["q"]);
  });

  it("a 50035 on message_reference: resent once without the reference, with the same content and nonce", async () => {
    const { b, channel, reply, posts } = await replyBench();
    b.fake.failNext(invalidForm("message_reference", "REPLIES_UNKNOWN_MESSAGE"), { op: "send" });
    const receipt = await b.runtime.send(reply("answer"));
    const [first, second, ...more] = posts();
    expect(more).toEqual([]);
    expect(first?.body.message_reference).toBeDefined();
    expect(second?.body).not.toHaveProperty("message_reference");
    expect(second?.body).toMatchObject({
      content: first?.body.content,
      nonce: first?.body.nonce,
      enforce_nonce: true,
    });
    const shown = b.fake.messages(channel.id);
    expect(shown.map((m) => m.text)).toEqual(["q", "answer"]);
    expect(receipt.platformMessageIds).toEqual([`${channel.id}:${shown[1]?.id}`]);
  });

  it("a 50035 naming message_reference on a message that has none is not retried", async () => {
    const { b, channel, target, posts } = await replyBench();
    b.fake.failNext(invalidForm("message_reference", "REPLIES_UNKNOWN_MESSAGE"), { op: "send" });
    await b.runtime.enqueue(b.message(target, "plain"), { idempotencyKey: "plain" });
    expect((await b.settled("plain")).status).toBe("failed");
    expect(posts()).toHaveLength(1);
    expect(b.fake.messages(channel.id).map((m) => m.text)).toEqual(["q"]);
  });
});

describe("the start-a-thread fallback", () => {
  it("10003 Unknown Channel on a channel target (no thread) starts nothing: not_found, one request", async () => {
    const b = await openBench();
    const { channel, target } = b.channel();
    b.fake.failNext(
      { kind: "status", status: 404, body: { code: 10003, message: "Unknown Channel" } },
      { op: "send" },
    );
    await b.runtime.enqueue(b.message(target, "x"), { idempotencyKey: "gone" });
    const intent = await b.settled("gone");
    expect(intent.status).toBe("failed");
    expect(intent.failure).toMatchObject({ kind: "not_found", platformCode: "10003" });
    expect(b.fake.requests.filter((r) => r.method === "POST")).toHaveLength(1);
    expect([...b.fake.channels.values()].filter((c) => c.type === "thread")).toEqual([]);
    expect(b.fake.messages(channel.id)).toEqual([]);
  });
});
