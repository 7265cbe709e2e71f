import { type ChannelMessage, placeReply } from "@herald/plugin-sdk/channel-message";
import { describe, expect, it, onTestFinished } from "vitest";
import { intentMark, unitMarkOf } from "./origin.ts";
import { ALICE } from "./testing/index.ts";
import { openSlackRun } from "./testkit.ts";

/** An inbound message as normalize makes it (thread replies carry the root in their target). */
function inbound(channel: string, ts: string, threadTs?: string): ChannelMessage {
  return {
    id: `in-${ts}`,
    channel: "slack",
    accountId: "main",
    direction: "inbound",
    target: threadTs
      ? { kind: "thread", id: channel, parentId: channel, threadId: threadTs }
      : { kind: "group", id: channel },
    platformMessageId: `${channel}:${ts}`,
    threadAnchor: { threadId: threadTs ?? ts },
    sender: { id: ALICE.id },
    body: { markdown: "deploy?" },
  };
}

describe("send", () => {
  it("C25 (a): every post of a two-chunk thread reply, the retried one too, carries the root's thread_ts", async () => {
    const run = await openSlackRun(onTestFinished, { maxTextLength: 40 });
    const channel = run.fake.createChannel().id;
    const root = run.fake.addMessage({ channel, text: "root", user: ALICE.id });
    const reply = run.fake.addMessage({
      channel,
      text: "deploy?",
      user: ALICE.id,
      threadTs: root.ts,
    });
    const address = placeReply(inbound(channel, reply.ts, root.ts));
    // Chunk 2 fails with a 5xx (maybe sent): reconciled, then sent again into the same thread.
    run.fake.failNext(
      { kind: "status", status: 503, code: "unavailable" },
      { op: "send", skip: 1 },
    );
    const text = "first chunk words here. second chunk words there.";
    await run.runtime.enqueue(
      run.message("slack", address.target, text, { relation: address.relation }),
      {
        idempotencyKey: "c25a",
      },
    );
    const intent = await run.settled("c25a", 15_000);
    expect(intent.status).toBe("sent");
    expect(run.fake.server.calls.filter((c) => c.op === "send").map((c) => c.outcome)).toEqual([
      "ok 200",
      "status 503",
      "ok 200",
    ]);
    const posts = run.fake.posts.filter((p) => p.method === "chat.postMessage");
    expect(posts).toHaveLength(2);
    for (const p of posts) expect(p).toMatchObject({ threadTs: root.ts, replyBroadcast: false });
    const visible = run.fake.messages(channel, { thread: root.ts }).filter((m) => m.author.bot);
    expect(visible.map((m) => m.text).join(" ")).toBe(text);
  });

  it("C25 (b): a reply to a top-level message goes into its thread when thread replies are on", async () => {
    const run = await openSlackRun(onTestFinished, { replyInThread: true });
    const channel = run.fake.createChannel().id;
    const top = run.fake.addMessage({ channel, text: "deploy?", user: ALICE.id });
    const address = placeReply(inbound(channel, top.ts));
    await run.runtime.send(
      run.message("slack", address.target, "on it", { relation: address.relation }),
    );
    expect(run.fake.posts.map((p) => p.threadTs)).toEqual([top.ts]);
    expect(run.fake.messages(channel, { thread: top.ts }).map((m) => m.text)).toEqual(["on it"]);
  });

  it("C25 (c): with thread replies off the reply stays top-level", async () => {
    const run = await openSlackRun(onTestFinished, { replyInThread: false });
    const channel = run.fake.createChannel().id;
    const top = run.fake.addMessage({ channel, text: "deploy?", user: ALICE.id });
    const address = placeReply(inbound(channel, top.ts));
    await run.runtime.send(
      run.message("slack", address.target, "on it", { relation: address.relation }),
    );
    expect(run.fake.posts.map((p) => p.threadTs)).toEqual([undefined]);
    expect(run.fake.messages(channel, { thread: null }).map((m) => m.text)).toEqual([
      "deploy?",
      "on it",
    ]);
  });

  it("reply_broadcast only when configured or asked for", async () => {
    const run = await openSlackRun(onTestFinished, { replyBroadcast: true });
    const channel = run.fake.createChannel().id;
    const top = run.fake.addMessage({ channel, text: "deploy?", user: ALICE.id });
    const address = placeReply(inbound(channel, top.ts), "broadcast");
    await run.runtime.send(
      run.message("slack", address.target, "done", { relation: address.relation }),
    );
    expect(run.fake.posts).toMatchObject([{ threadTs: top.ts, replyBroadcast: true }]);
    expect(run.fake.messages(channel, { thread: null }).map((m) => m.text)).toEqual([
      "deploy?",
      "done",
    ]);
  });

  it("marks every part with the hashed intent key and its index, never the key itself", async () => {
    const run = await openSlackRun(onTestFinished, { maxTextLength: 30 });
    const channel = run.fake.createChannel().id;
    await run.runtime.send(
      run.message(
        "slack",
        { kind: "group", id: channel },
        "one two three four five six seven eight",
      ),
      { idempotencyKey: "secret-looking-key" },
    );
    const parts = [...run.fake.messagesByRef.values()].filter((m) => m.channel === channel);
    expect(parts.length).toBeGreaterThanOrEqual(2);
    parts.forEach((m, i) => {
      expect(unitMarkOf({ metadata: m.metadata })).toEqual({
        intent: intentMark("main", "secret-looking-key"),
        unit: i,
      });
      expect(JSON.stringify(m.metadata)).not.toContain("secret-looking-key");
    });
  });

  it("renders mrkdwn: & < > escaped once, a user's literal <@U123> never a mention, links kept", async () => {
    const run = await openSlackRun(onTestFinished);
    const channel = run.fake.createChannel().id;
    await run.runtime.send(
      run.message(
        "slack",
        { kind: "group", id: channel },
        "**Deploy** <@U123> & a < b [docs](https://e.x/a?b=1&c=2)",
      ),
    );
    const [m] = run.fake.messages(channel);
    expect(m?.text).toBe("*Deploy* &lt;@U123&gt; &amp; a &lt; b <https://e.x/a?b=1&amp;c=2|docs>");
  });

  it("chunks keep code fences balanced: each part opens and closes its fence", async () => {
    const run = await openSlackRun(onTestFinished, { maxTextLength: 60 });
    const channel = run.fake.createChannel().id;
    const code = Array.from({ length: 8 }, (_, i) => `line ${i} of code`).join("\n");
    await run.runtime.send(
      run.message("slack", { kind: "group", id: channel }, `\`\`\`\n${code}\n\`\`\``),
    );
    const texts = run.fake.messages(channel).map((m) => m.text);
    expect(texts.length).toBeGreaterThanOrEqual(2);
    for (const t of texts) {
      expect(t.length).toBeLessThanOrEqual(60);
      expect(t.match(/```/g)?.length).toBe(2);
    }
  });

  it("an ok answer without a ts is maybe sent (reconciled), never a permanent failure", async () => {
    const run = await openSlackRun(onTestFinished);
    const channel = run.fake.createChannel().id;
    run.fake.failNext({ kind: "status", status: 200, body: { ok: true, channel } }, { op: "send" });
    await run.runtime.enqueue(run.message("slack", { kind: "group", id: channel }, "hello"), {
      idempotencyKey: "no-ts",
    });
    const intent = await run.settled("no-ts", 15_000);
    expect(intent.status).toBe("sent");
    expect(
      run.fake
        .messages(channel)
        .filter((m) => m.author.bot)
        .map((m) => m.text),
    ).toEqual(["hello"]);
  });

  it("edits with chat.update and deletes with chat.delete", async () => {
    const run = await openSlackRun(onTestFinished);
    const channel = run.fake.createChannel().id;
    const target = { kind: "group" as const, id: channel };
    const receipt = await run.runtime.send(run.message("slack", target, "first"));
    await run.runtime.edit(receipt, run.message("slack", target, "second"));
    expect(run.fake.messages(channel).map((m) => m.text)).toEqual(["second"]);
    await run.runtime.delete(receipt, run.message("slack", target, ""), { idempotencyKey: "del" });
    expect(run.fake.messages(channel)).toEqual([]);
  });
});
