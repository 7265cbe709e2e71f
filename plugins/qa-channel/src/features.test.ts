/**
 * [H23] The features beyond text on the QA channel, end to end through the message runtime
 * (real SQLite store, real HTTP to the QA platform on 127.0.0.1): reactions (a replay never
 * toggles one off), DMs (opening is idempotent), files both ways (each file its own unit and
 * receipt part; too large → typed error before any upload; inbound streamed under a cap),
 * buttons and clicks (handler once per click), ephemeral replies, history.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AttachmentTooLargeError,
  type ChannelMessage,
  type InboundAction,
  type InboundReaction,
} from "@herald/plugin-sdk/channel-message";
import {
  createMessageRuntime,
  type MessageRuntime,
  SqliteStateStore,
} from "@herald/plugin-sdk/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createQaAdapter } from "./index.ts";
import { QA_CHANNEL_ID } from "./receive.ts";
import { testConfig } from "./testing/harness.ts";
import { DEFAULT_QA_BOT, QaPlatform } from "./testing/platform/QaPlatform.ts";

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function setup() {
  const platform = await QaPlatform.start();
  cleanup.push(() => platform.close());
  const store = new SqliteStateStore({ path: ":memory:" });
  const adapter = createQaAdapter(
    testConfig({ baseUrl: platform.url, token: DEFAULT_QA_BOT.token, delivery: "idempotent" }),
    DEFAULT_QA_BOT.token,
  );
  const runtime: MessageRuntime = createMessageRuntime({
    store,
    adapters: [adapter],
    delivery: { pollIntervalMs: 5, backoff: { baseMs: 5, maxMs: 20 } },
    live: { recoveryIntervalMs: 0 },
  });
  await runtime.start();
  cleanup.push(async () => {
    await runtime.stop(1_000);
    await store.close();
  });
  platform.createChat({ id: "room", type: "group" });
  /** Feeds every platform event after `since` into the runtime, as the receiver does. */
  const deliver = async (since: number) => {
    const outcomes = [];
    for (const event of platform.eventsAfter(since))
      outcomes.push(await runtime.receive(event, { channel: QA_CHANNEL_ID }).done);
    return outcomes;
  };
  return { platform, runtime, deliver };
}

const out = (id: string, extra: Partial<ChannelMessage> = {}): ChannelMessage => ({
  id,
  channel: QA_CHANNEL_ID,
  direction: "outbound",
  target: { kind: "group", id: "room" },
  ...extra,
});

describe("[H23] qa features", () => {
  it("C-H23-react: adds and removes a reaction durably; a replayed add (maybe sent) is still on, a repeated key sends nothing", async () => {
    const { platform, runtime } = await setup();
    const m = platform.post({ chat: "room", text: "look at this" });
    const react = (key: string, remove = false) =>
      runtime.react({
        channel: QA_CHANNEL_ID,
        target: { kind: "group", id: "room" },
        messageId: m.id,
        emoji: "👀",
        ...(remove ? { remove: true } : {}),
        idempotencyKey: key,
      });
    // The platform applies the add, then the connection drops: maybe sent → replayed.
    platform.faults.failNext({ kind: "reset_after_accept" }, { op: "react" });
    const receipt = await react("r1");
    expect(receipt.parts).toEqual([
      expect.objectContaining({ kind: "reaction", replyToId: m.id, index: 0 }),
    ]);
    expect(platform.extras.reactionsOf(m.id)).toEqual({ "👀": [DEFAULT_QA_BOT.id] });
    const calls = platform.server.calls.filter((c) => c.op === "react").length;
    expect(calls).toBe(2); // the lost answer, then the replay (answered `changed: false`)
    await react("r1"); // same key: the first receipt, no platform call
    expect(platform.server.calls.filter((c) => c.op === "react").length).toBe(calls);
    await react("r2", true);
    expect(platform.extras.reactionsOf(m.id)).toBeUndefined();
  });

  it("C-H23-dm: opening a DM twice gives the same conversation; a message lands there", async () => {
    const { platform, runtime } = await setup();
    const a = await runtime.openDirect({ channel: QA_CHANNEL_ID, userId: "alice" });
    const b = await runtime.openDirect({ channel: QA_CHANNEL_ID, userId: "alice" });
    expect(a).toEqual({ kind: "direct", id: `dm:${DEFAULT_QA_BOT.id}:alice` });
    expect(b).toEqual(a);
    await runtime.send({ ...out("dm-1"), target: a, body: { markdown: "hello in private" } });
    expect(platform.state.messages({ chat: a.id }).map((x) => x.text)).toEqual([
      "hello in private",
    ]);
    expect(platform.chat(a.id)?.type).toBe("direct");
  });

  it("C-H23-files: two files and a caption are three units with three receipt parts, shown once; too large fails before any upload", async () => {
    const { platform, runtime } = await setup();
    const dir = await mkdtemp(join(tmpdir(), "h23-"));
    await writeFile(join(dir, "a.txt"), "alpha");
    await writeFile(join(dir, "b.png"), new Uint8Array([137, 80, 78, 71]));
    const message = out("files-1", {
      body: { markdown: "two files" },
      attachments: [
        { kind: "file", path: join(dir, "a.txt"), mimeType: "text/plain" },
        { kind: "image", path: join(dir, "b.png"), mimeType: "image/png", caption: "the logo" },
      ],
    });
    const receipt = await runtime.send(message, { idempotencyKey: "files-1" });
    expect(receipt.parts.map((p) => [p.index, p.kind])).toEqual([
      [0, "media"],
      [1, "media"],
      [2, "text"],
    ]);
    const shown = platform.state.messages({ chat: "room" }).map((m) => platform.toWire(m));
    expect(shown.map((m) => [m.text, m.files?.map((f) => [f.name, f.size])])).toEqual([
      ["", [["a.txt", 5]]],
      ["the logo", [["b.png", 4]]],
      ["two files", undefined],
    ]);
    await runtime.send(message, { idempotencyKey: "files-1" });
    expect(platform.state.messages({ chat: "room" })).toHaveLength(3);

    const uploads = platform.extras.uploads;
    const big = out("files-2", {
      attachments: [{ kind: "file", path: join(dir, "a.txt"), name: "huge.bin", sizeBytes: 6e6 }],
    });
    const error = await runtime.send(big).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AttachmentTooLargeError);
    expect(error).toMatchObject({
      code: "HERALD_ATTACHMENT_TOO_LARGE",
      fileName: "huge.bin",
      maxBytes: 5 * 1024 * 1024,
      channel: QA_CHANNEL_ID,
    });
    expect(platform.extras.uploads).toBe(uploads);
  });

  it("C-H23-action: a click on a button reaches the action handler once, redelivered or not", async () => {
    const { platform, runtime, deliver } = await setup();
    const clicks: InboundAction[] = [];
    runtime.onAction((action) => {
      clicks.push(action);
    });
    const receipt = await runtime.send(
      out("ask", {
        body: { markdown: "Approve?" },
        actions: [
          { kind: "button", id: "approve", label: "Approve", value: "yes", style: "primary" },
          { kind: "button", id: "reject", label: "Reject", style: "danger" },
        ],
      }),
    );
    const id = receipt.primaryPlatformMessageId ?? "";
    expect(platform.toWire(platform.state.get(id) as never).buttons?.map((b) => b.id)).toEqual([
      "approve",
      "reject",
    ]);
    const since = platform.lastSeq;
    const click = platform.click({ messageId: id, actionId: "approve", user: { id: "alice" } });
    platform.redeliverEvent(click.seq);
    const outcomes = await deliver(since);
    expect(outcomes.map((o) => o.status)).toEqual(["interaction", "duplicate"]);
    expect(clicks).toHaveLength(1);
    expect(clicks[0]).toMatchObject({
      kind: "action",
      actionId: "approve",
      value: "yes",
      messageId: id,
      sender: { id: "alice" },
    });
  });

  it("C-H23-action-concurrent: two copies of one click handed over at the same moment run the handler once", async () => {
    const { platform, runtime } = await setup();
    const clicks: InboundAction[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    runtime.onAction(async (action) => {
      clicks.push(action);
      await gate; // the first copy is still being handled when the second arrives
    });
    const receipt = await runtime.send(
      out("ask-2", {
        body: { markdown: "Approve?" },
        actions: [{ kind: "button", id: "approve", label: "Approve" }],
      }),
    );
    const since = platform.lastSeq;
    platform.click({
      messageId: receipt.primaryPlatformMessageId ?? "",
      actionId: "approve",
      user: { id: "alice" },
    });
    const [event] = platform.eventsAfter(since);
    const first = runtime.receive(event, { channel: QA_CHANNEL_ID }).done;
    const second = runtime.receive(event, { channel: QA_CHANNEL_ID }).done;
    await new Promise((r) => setTimeout(r, 50));
    release();
    const outcomes = await Promise.all([first, second]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(["duplicate", "interaction"]);
    expect(clicks).toHaveLength(1);
  });

  it("C-H23-reaction-in: a user's reaction reaches the reaction handler once, with the reacted-to message", async () => {
    const { platform, runtime, deliver } = await setup();
    const seen: InboundReaction[] = [];
    runtime.onReaction((r) => {
      seen.push(r);
    });
    const m = platform.post({ chat: "room", text: "hi" });
    const since = platform.lastSeq;
    platform.react({ messageId: m.id, emoji: "🎉", user: { id: "alice" } });
    platform.redeliverEvent(since + 1);
    platform.react({ messageId: m.id, emoji: "🎉", user: { id: "alice" }, remove: true });
    const outcomes = await deliver(since);
    expect(outcomes.map((o) => o.status)).toEqual(["interaction", "duplicate", "interaction"]);
    expect(seen.map((r) => [r.emoji, r.removed, r.messageId, r.sender.id])).toEqual([
      ["🎉", false, m.id, "alice"],
      ["🎉", true, m.id, "alice"],
    ]);
  });

  it("C-H23-ephemeral: an ephemeral reply is shown to one user only, never in the conversation", async () => {
    const { platform, runtime } = await setup();
    const receipt = await runtime.sendEphemeral({
      channel: QA_CHANNEL_ID,
      target: { kind: "group", id: "room" },
      userId: "alice",
      message: { id: "e1", body: { markdown: "just for you" } },
    });
    expect(receipt.parts).toHaveLength(1);
    expect(platform.extras.ephemerals("room", "alice").map((e) => e.text)).toEqual([
      "just for you",
    ]);
    expect(platform.extras.ephemerals("room", "bob")).toEqual([]);
    expect(platform.state.messages({ chat: "room" })).toEqual([]);
  });

  it("C-H23-history: reads the newest messages oldest first, a thread alone, and pages with before", async () => {
    const { platform, runtime } = await setup();
    const first = platform.post({ chat: "room", text: "one" });
    platform.post({ chat: "room", text: "two" });
    platform.post({ chat: "room", text: "in thread", thread: first.id });
    const three = platform.post({ chat: "room", text: "three" });
    const at = { channel: QA_CHANNEL_ID, target: { kind: "group" as const, id: "room" } };
    const texts = (ms: ChannelMessage[]) => ms.map((m) => m.body?.markdown);
    expect(texts(await runtime.history({ ...at, limit: 2 }))).toEqual(["in thread", "three"]);
    expect(texts(await runtime.history({ ...at, limit: 10, threadId: first.id }))).toEqual([
      "one",
      "in thread",
    ]);
    expect(texts(await runtime.history({ ...at, limit: 2, before: three.id }))).toEqual([
      "two",
      "in thread",
    ]);
    await expect(runtime.history({ ...at, limit: 0 })).rejects.toThrow(/limit/);
  });

  it("C-H23-files-in: a user's file arrives as an attachment, streamed under a byte cap", async () => {
    const { platform, runtime } = await setup();
    const seen: ChannelMessage[] = [];
    runtime.onMessage(async (ctx) => {
      seen.push(ctx.input);
    });
    const since = platform.lastSeq;
    const bytes = new TextEncoder().encode("x".repeat(10_000));
    const res = await fetch(
      `${platform.url}/ui/chats/room/files?name=log.txt&mime_type=text/plain&user_id=alice&text=see`,
      {
        method: "POST",
        body: bytes,
      },
    );
    expect(res.status).toBe(200);
    for (const event of platform.eventsAfter(since))
      await runtime.receive(event, { channel: QA_CHANNEL_ID }).done;
    const attachment = seen[0]?.attachments?.[0];
    expect(attachment).toMatchObject({
      name: "log.txt",
      mimeType: "text/plain",
      sizeBytes: 10_000,
    });
    if (!attachment) throw new Error("no attachment");
    const read = async (maxBytes: number) => {
      const stream = await runtime.fetchAttachment({
        channel: QA_CHANNEL_ID,
        attachment,
        maxBytes,
      });
      let n = 0;
      for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>)
        n += chunk.byteLength;
      return n;
    };
    expect(await read(20_000)).toBe(10_000);
    await expect(read(1_000)).rejects.toBeInstanceOf(AttachmentTooLargeError);
  });
});
