import type { MessageTarget } from "@herald/plugin-sdk/channel-message";
import { eventually, scaledMs } from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import type { SlackConfigInput } from "./config.ts";
import { ALICE } from "./testing/index.ts";
import { openSlackRun, type SlackTestRun } from "./testkit.ts";

async function streamRun(extra: SlackConfigInput = {}) {
  return openSlackRun(onTestFinished, { nativeStreaming: true, ...extra });
}

async function session(
  run: SlackTestRun,
  target: MessageTarget,
  key: string,
  withRecipient = false,
) {
  return run.runtime.live(
    {
      channel: "slack",
      accountId: "main",
      target,
      ...(withRecipient ? { recipient: { userId: ALICE.id, teamId: ALICE.teamId } } : {}),
    },
    { idempotencyKey: key, mode: "native", typing: false },
  );
}

const dm = (run: SlackTestRun): MessageTarget => ({
  kind: "direct",
  id: run.fake.createChannel({ type: "im" }).id,
});

const bots = (run: SlackTestRun, channel: string) =>
  run.fake.messages(channel).filter((m) => m.author.bot);

/** Streams "Hello " then "world" and waits until the stream shows both. */
async function helloWorld(run: SlackTestRun, target: MessageTarget, key: string) {
  const live = await session(run, target, key);
  live.update("Hello ");
  await eventually(
    () => bots(run, target.id),
    (v) => v[0]?.text === "Hello ",
  );
  live.update("Hello world");
  await eventually(
    () => bots(run, target.id),
    (v) => v[0]?.text === "Hello world",
  );
  await live.idle();
  return live;
}

describe("native streaming (C24)", () => {
  it("C24: stream Hello + world, stop: the visible text is exactly 'Hello world', once", async () => {
    const run = await streamRun();
    const target = dm(run);
    const live = await helloWorld(run, target, "s1");
    const receipt = await live.finalize("Hello world");
    const [m, ...more] = bots(run, target.id);
    expect(more).toEqual([]);
    expect(m?.text).toBe("Hello world");
    expect(receipt.primaryPlatformMessageId).toContain(target.id);
    // The stop carried nothing new: the text was never doubled, not even for a moment.
    expect(m?.history.every((t) => !t.includes("Hello worldHello"))).toBe(true);
    expect(run.fake.server.calls.map((c) => c.op).filter((op) => op.startsWith("stream"))).toEqual([
      "stream_begin",
      "stream_append",
      "stream_stop",
    ]);
  });

  it("C24: the stop carries only what is not shown yet", async () => {
    const run = await streamRun();
    const target = dm(run);
    const live = await helloWorld(run, target, "s2");
    await live.finalize("Hello world, and more.");
    expect(bots(run, target.id).map((m) => m.text)).toEqual(["Hello world, and more."]);
  });

  it("C24 variant: chat.stopStream answers internal_error: the text is completed once", async () => {
    const run = await streamRun();
    const target = dm(run);
    const live = await helloWorld(run, target, "s3");
    run.fake.failNext(
      { kind: "status", status: 200, body: { ok: false, error: "internal_error" } },
      { op: "stream_stop" },
    );
    await live.finalize("Hello world!");
    expect(bots(run, target.id).map((m) => m.text)).toEqual(["Hello world!"]);
  });

  it("C24 variant: the stop landed but its answer was lost: the repeat does not double the text", async () => {
    const run = await streamRun();
    const target = dm(run);
    const live = await helloWorld(run, target, "s4");
    run.fake.failNext({ kind: "reset_after_accept" }, { op: "stream_stop" });
    await live.finalize("Hello world!");
    expect(bots(run, target.id).map((m) => m.text)).toEqual(["Hello world!"]);
  });

  it("C24 variant: a final tail longer than one call (appends, then the stop) whose stop fails after its append landed is not doubled", async () => {
    const run = await streamRun();
    const target = dm(run);
    const live = await helloWorld(run, target, "s4b");
    // More than SLACK_STREAM_CHUNK_LIMIT (12,000) unshown characters: one append, then the stop.
    const tail = ` ${"long answer words ".repeat(800)}`.trimEnd();
    run.fake.failNext(
      { kind: "status", status: 200, body: { ok: false, error: "internal_error" } },
      { op: "stream_stop" },
    );
    await live.finalize(`Hello world${tail}`);
    expect(bots(run, target.id).map((m) => m.text)).toEqual([`Hello world${tail}`]);
  });

  it("C24 variant: message_not_in_streaming_state after the appends landed: completed by chat.update on the stream ts", async () => {
    const run = await streamRun();
    const target = dm(run);
    const live = await helloWorld(run, target, "s5");
    run.fake.streamLifetimeMs = 0; // Slack ended the stream
    const receipt = await live.finalize("Hello world, finished.");
    const visible = bots(run, target.id);
    expect(visible.map((m) => m.text)).toEqual(["Hello world, finished."]);
    expect(
      receipt.primaryPlatformMessageId?.endsWith(
        run.fake.messageOfVisible(visible[0] as never)?.ts ?? "?",
      ),
    ).toBe(true);
  });

  it("C24 variant: a stop refused for good is completed with chat.update; never zero copies, never two", async () => {
    const run = await streamRun();
    const target = dm(run);
    const live = await helloWorld(run, target, "s6");
    run.fake.failNext(
      { kind: "status", status: 200, body: { ok: false, error: "invalid_arguments" } },
      { op: "stream_stop", times: 10 },
    );
    await live.finalize("Hello world.");
    expect(bots(run, target.id).map((m) => m.text)).toEqual(["Hello world."]);
  });

  it("C24 variant: the stream message is gone (stop and update fail): one fallback post carries the final", async () => {
    const run = await streamRun();
    const target = dm(run);
    const live = await helloWorld(run, target, "s11");
    const [stream] = bots(run, target.id);
    run.fake.state.delete(stream?.id ?? "");
    const receipt = await live.finalize("Hello world.");
    const visible = bots(run, target.id);
    expect(visible.map((m) => m.text)).toEqual(["Hello world."]);
    expect(receipt.primaryPlatformMessageId).toBe(
      `${target.id}:${run.fake.messageOfVisible(visible[0] as never)?.ts}`,
    );
  });

  it("an expired stream loses no buffered text: later text goes in with chat.update", async () => {
    const run = await streamRun();
    const target = dm(run);
    const live = await helloWorld(run, target, "s7");
    run.fake.streamLifetimeMs = 0;
    live.update("Hello world, then more text");
    await eventually(
      () => bots(run, target.id),
      (v) => v[0]?.text === "Hello world, then more text",
    );
    await live.finalize("Hello world, then more text.");
    expect(bots(run, target.id).map((m) => m.text)).toEqual(["Hello world, then more text."]);
  });

  it("rotates a stream before its lifetime: a new message continues it, an open code fence closed and re-opened", async () => {
    const run = await streamRun({ streamRotateAfterMs: 300 });
    const target = dm(run);
    const live = await session(run, target, "s8");
    live.update("Intro\n```js\nconst a = 1;");
    await eventually(
      () => bots(run, target.id),
      (v) => v.length === 1,
    );
    await live.idle();
    await new Promise((r) => setTimeout(r, 400));
    live.update("Intro\n```js\nconst a = 1;\nconst b = 2;\n```\nDone");
    await eventually(
      () => bots(run, target.id),
      (v) => v.length === 2,
    );
    await live.finalize("Intro\n```js\nconst a = 1;\nconst b = 2;\n```\nDone.");
    const texts = bots(run, target.id).map((m) => m.text);
    expect(texts).toEqual(["Intro\n```js\nconst a = 1;\n```", "```js\n\nconst b = 2;\n```\nDone."]);
    for (const t of texts) expect((t.match(/```/g) ?? []).length % 2).toBe(0);
  });

  it("streams into a channel thread only with the recipient; without it, a preview edited with chat.update", async () => {
    const run = await streamRun();
    const channel = run.fake.createChannel().id;
    const root = run.fake.addMessage({ channel, text: "question", user: ALICE.id });
    const thread: MessageTarget = {
      kind: "thread",
      id: channel,
      parentId: channel,
      threadId: root.ts,
    };
    const withRecipient = await session(run, thread, "s9", true);
    withRecipient.update("streamed");
    await eventually(
      () => bots(run, channel),
      (v) => v.length === 1,
    );
    await withRecipient.finalize("streamed answer");
    const without = await session(run, thread, "s10");
    without.update("previewed");
    await eventually(
      () => bots(run, channel),
      (v) => v.length === 2,
    );
    await without.finalize("previewed answer");
    expect(bots(run, channel).map((m) => [m.thread, m.text])).toEqual([
      [root.ts, "streamed answer"],
      [root.ts, "previewed answer"],
    ]);
    // The first session streamed; the second (no recipient) posted a preview — all in the thread.
    const posts = run.fake.posts.map((p) => [p.method, p.threadTs]);
    expect(posts[0]).toEqual(["chat.startStream", root.ts]);
    expect(posts.slice(1).every(([m, t]) => m === "chat.postMessage" && t === root.ts)).toBe(true);
  });
});

describe("C06: Slack edit rate-limited", () => {
  for (const variant of ["HTTP 429 Retry-After: 3", "HTTP 200 ok:false ratelimited"] as const) {
    it(
      `C06 (${variant}): the preview edit is never counted as delivered; only the latest text is sent; the final lands`,
      async () => {
        const run = await openSlackRun(onTestFinished);
        const channel = run.fake.createChannel().id;
        const target: MessageTarget = { kind: "group", id: channel };
        const live = await run.runtime.live(
          { channel: "slack", accountId: "main", target },
          { idempotencyKey: "c06", mode: "partial", typing: false },
        );
        live.update("step one");
        await eventually(
          () => bots(run, channel),
          (v) => v[0]?.text === "step one",
        );
        await live.idle();
        run.fake.failNext(
          variant === "HTTP 429 Retry-After: 3"
            ? {
                kind: "status",
                status: 429,
                body: { ok: false, error: "ratelimited" },
                headers: { "retry-after": "3" },
              }
            : { kind: "status", status: 200, body: { ok: false, error: "ratelimited" } },
          { op: "edit" },
        );
        const started = Date.now();
        live.update("step two");
        await eventually(
          () => run.fake.server.calls.filter((c) => c.op === "edit").length,
          (n) => n >= 1,
        );
        live.update("step three");
        live.update("step four");
        const receipt = await live.finalize("the final text");
        const [m, ...more] = bots(run, channel);
        expect(more).toEqual([]);
        expect(m?.text).toBe("the final text");
        expect(receipt.primaryPlatformMessageId).toBe(
          `${channel}:${run.fake.messageOfVisible(m as never)?.ts}`,
        );
        // The refused edit never showed; the intermediate texts after it were skipped.
        expect(m?.history).not.toContain("step two");
        expect(m?.history).not.toContain("step three");
        if (variant === "HTTP 429 Retry-After: 3")
          expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
      },
      scaledMs(20_000),
    );
  }
});
