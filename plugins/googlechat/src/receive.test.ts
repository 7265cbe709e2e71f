/**
 * Normalization of Chat app events and the webhook path end to end: MESSAGE in a space, in a
 * thread and in a DM; ADDED_TO_SPACE / REMOVED_FROM_SPACE as typed events; dedupe on
 * `message.name` across redeliveries; malformed events dead-lettered with the field path.
 */
import { ReceiveValidationError } from "@herald/plugin-sdk/channel-message";
import { eventually } from "@herald/plugin-sdk/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createReceive } from "./receive.ts";
import { ALICE, FAKE_ACCESS_TOKEN, FAKE_APP, FakeGoogleChat } from "./testing/FakeGoogleChat.ts";
import { type GoogleChatRun, openGoogleChatRun } from "./testing/fixture.ts";

let open: GoogleChatRun | undefined;
let fake: FakeGoogleChat | undefined;
afterEach(async () => {
  await open?.close();
  await fake?.close();
  open = undefined;
  fake = undefined;
});

const ctx = { channel: "googlechat", accountId: "main", receivedAt: 0 };

describe("normalize", () => {
  it("a top-level message in a space: group target, threadAnchor = its thread.name, never the message name", async () => {
    fake = await FakeGoogleChat.start();
    const space = fake.createSpace("SPACE").name;
    const message = fake.store.add({
      space,
      thread: fake.store.newThread(space),
      sender: ALICE,
      text: "hi **bot**",
    });
    const out = await createReceive().normalize(fake.messageEvent(message), ctx);
    expect(out).toMatchObject({
      direction: "inbound",
      channel: "googlechat",
      accountId: "main",
      target: { kind: "group", id: space },
      platformMessageId: message.name,
      threadAnchor: { threadId: message.thread },
      sender: { id: ALICE.name, displayName: "Alice", isBot: false },
      body: { markdown: "hi **bot**" },
    });
    expect("threadAnchor" in out && out.threadAnchor?.threadId).toMatch(
      /^spaces\/[^/]+\/threads\//,
    );
  });

  it("a reply inside a thread targets that thread", async () => {
    fake = await FakeGoogleChat.start();
    const space = fake.createSpace("SPACE").name;
    const thread = fake.store.newThread(space);
    fake.store.add({ space, thread, sender: ALICE, text: "root" });
    const reply = fake.store.add({ space, thread, sender: ALICE, text: "in thread" });
    const out = await createReceive().normalize(fake.messageEvent(reply), ctx);
    expect(out).toMatchObject({
      target: { kind: "thread", id: space, threadId: thread },
      threadAnchor: { threadId: thread },
    });
  });

  it("a DM is detected from the space type and gets no thread anchor", async () => {
    fake = await FakeGoogleChat.start();
    const space = fake.createSpace("DIRECT_MESSAGE").name;
    const message = fake.store.add({
      space,
      thread: fake.store.newThread(space),
      sender: ALICE,
      text: "psst",
    });
    const out = await createReceive().normalize(fake.messageEvent(message), ctx);
    expect(out).toMatchObject({ target: { kind: "direct", id: space } });
    expect("threadAnchor" in out ? out.threadAnchor : undefined).toBeUndefined();
    // The older event format says so with `type: "DM"` only.
    const legacy = { ...fake.messageEvent(message), space: { name: space, type: "DM" } };
    const old = await createReceive().normalize(
      { ...legacy, message: { ...fake.store.toJson(message), space: { name: space, type: "DM" } } },
      ctx,
    );
    expect(old).toMatchObject({ target: { kind: "direct" } });
  });

  it("ADDED_TO_SPACE and REMOVED_FROM_SPACE are member_joined / member_left events", async () => {
    fake = await FakeGoogleChat.start();
    const space = fake.createSpace("SPACE").name;
    const joined = await createReceive().normalize(
      fake.membershipEvent("ADDED_TO_SPACE", space),
      ctx,
    );
    expect(joined).toMatchObject({
      kind: "event",
      type: "member_joined",
      target: { kind: "group", id: space },
      actor: { id: ALICE.name },
      members: [{ id: "users/app", isSelf: true }],
    });
    const left = await createReceive().normalize(
      fake.membershipEvent("REMOVED_FROM_SPACE", space),
      ctx,
    );
    expect(left).toMatchObject({ kind: "event", type: "member_left" });
  });

  it("other event types are ignored with the reason; malformed ones throw with the field path", async () => {
    const receive = createReceive();
    expect(
      await receive.normalize({ type: "WIDGET_UPDATED", space: { name: "spaces/A" } }, ctx),
    ).toMatchObject({ kind: "ignore", reason: "event_type", detail: "WIDGET_UPDATED" });
    const bad = async (raw: unknown) => {
      try {
        await receive.normalize(raw, ctx);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    // [H23] a card click is an InboundAction (actions.test.ts); one without a function is malformed.
    const noFunction = await bad({
      type: "CARD_CLICKED",
      space: { name: "spaces/A" },
      user: { name: "users/1" },
    });
    expect(noFunction).toBeInstanceOf(ReceiveValidationError);
    expect(String((noFunction as Error).message)).toContain("action");
    const noMessage = await bad({ type: "MESSAGE", space: { name: "spaces/A" } });
    expect(noMessage).toBeInstanceOf(ReceiveValidationError);
    expect(String((noMessage as Error).message)).toContain("message");
    const badName = await bad({
      type: "MESSAGE",
      space: { name: "spaces/A" },
      message: { name: "not-a-name", sender: { name: "users/1" } },
    });
    expect(String((badName as Error).message)).toContain("message.name");
  });

  it("C35: a thread.name that is not a thread of the message's space is a malformed event naming the field, never an anchor", async () => {
    const receive = createReceive();
    const event = (message: Record<string, unknown>, space = "spaces/A") => ({
      type: "MESSAGE",
      space: { name: space, spaceType: "SPACE" },
      message: {
        name: "spaces/A/messages/M.M",
        sender: { name: "users/1" },
        text: "x",
        ...message,
      },
    });
    const pathOf = async (raw: unknown) => {
      try {
        await receive.normalize(raw, ctx);
      } catch (error) {
        expect(error).toBeInstanceOf(ReceiveValidationError);
        return (error as ReceiveValidationError).path;
      }
      return "accepted";
    };
    for (const name of [
      "spaces/A/messages/B.B", // a message name (C35)
      "spaces/OTHER/threads/T", // another space's thread
      "garbage",
      "",
      "spaces/A/threads/T/messages/X",
    ]) {
      expect(await pathOf(event({ thread: { name } })), name).toBe("message.thread.name");
    }
    expect(await pathOf(event({ thread: { name: 7 } }))).toBe("message.thread.name");
    expect(await pathOf(event({ thread: "spaces/A/threads/T" }))).toBe("message.thread");
    expect(await pathOf(event({ text: 5 }))).toBe("message.text");
    expect(await pathOf(event({ sender: { displayName: "x" } }))).toBe("message.sender.name");
    expect(await pathOf(event({ space: { name: "spaces/B" } }))).toBe("message.space.name");
    expect(await pathOf(event({}, "spaces/B"))).toBe("message.name");
    expect(await pathOf({ ...event({}), space: { name: 3 } })).toBe("space.name");
    expect(await pathOf({ ...event({}), type: ["MESSAGE"] })).toBe("type");
    const ok = await receive.normalize(event({ thread: { name: "spaces/A/threads/T" } }), ctx);
    expect(ok).toMatchObject({ threadAnchor: { threadId: "spaces/A/threads/T" } });
  });

  it("the app's own messages are self: users/app and the configured app user", () => {
    expect(createReceive().selfIds?.("main")).toEqual(["users/app"]);
    expect(createReceive([FAKE_APP.name]).selfIds?.("main")).toEqual(["users/app", FAKE_APP.name]);
  });
});

describe("the webhook path end to end", () => {
  it("dedupes on message.name: a redelivered event is processed once", async () => {
    open = await openGoogleChatRun({ receiver: true });
    const t = open;
    const space = t.fake.createSpace().name;
    const { message } = t.fake.userPost({ space, text: "once please" });
    await eventually(
      () => t.run.outcomes,
      (o) => o.length === 1,
    );
    t.fake.redeliver(message.name);
    await eventually(
      () => t.run.outcomes,
      (o) => o.length === 2,
    );
    expect(t.run.outcomes.map((o) => o.status)).toEqual(["processed", "duplicate"]);
    expect(t.run.handled).toHaveLength(1);
    expect(t.fake.deliveries.map((d) => d.status)).toEqual([200, 200]);
  });

  it("a membership event reaches the typed event handlers, never a turn", async () => {
    open = await openGoogleChatRun({ receiver: true });
    const t = open;
    const space = t.fake.createSpace().name;
    t.fake.deliver(t.fake.membershipEvent("ADDED_TO_SPACE", space));
    await eventually(
      () => t.run.outcomes,
      (o) => o.length === 1,
    );
    expect(t.run.handled).toEqual([]);
    expect(t.fake.deliveries[0]?.status).toBe(200);
  });

  it("an app added by @mention: the membership event and the person's message, both handled once", async () => {
    open = await openGoogleChatRun({ receiver: true });
    const t = open;
    const space = t.fake.createSpace().name;
    const message = t.fake.store.add({
      space,
      thread: t.fake.store.newThread(space),
      sender: ALICE,
      text: "@herald why is the build red?",
    });
    const event = {
      ...t.fake.membershipEvent("ADDED_TO_SPACE", space),
      message: t.fake.store.toJson(message),
    };
    t.fake.deliver(event);
    await eventually(
      () => t.run.outcomes,
      (o) => o.length === 2,
    );
    expect(t.run.handled.map((h) => h.input.body?.markdown)).toEqual([
      "@herald why is the build red?",
    ]);
    expect(t.run.handled[0]?.input.platformMessageId).toBe(message.name);
    expect(t.fake.deliveries.map((d) => d.status)).toEqual([200]);
    // Delivered again: both halves are duplicates, nothing handled twice.
    t.fake.deliver(event);
    await eventually(
      () => t.run.outcomes,
      (o) => o.length === 4,
    );
    expect(t.run.handled).toHaveLength(1);
  });

  it("a malformed event is dead-lettered with a typed error naming the field path, answered 200", async () => {
    open = await openGoogleChatRun({ receiver: true });
    const t = open;
    const space = t.fake.createSpace().name;
    const message = t.fake.store.add({
      space,
      thread: t.fake.store.newThread(space),
      sender: ALICE,
      text: "x",
    });
    const event = t.fake.messageEvent(message) as { message: Record<string, unknown> };
    event.message.thread = { name: message.name }; // a message name as the thread (C35)
    expect((await t.fake.post(event)).status).toBe(200);
    const letters = await t.run.store.listDeadLetters();
    expect(letters.map((l) => [l.error.name, l.error.path])).toEqual([
      ["ReceiveValidationError", "message.thread.name"],
    ]);
    expect(JSON.stringify(letters)).not.toContain(FAKE_ACCESS_TOKEN);
    expect(t.run.handled).toEqual([]);
  });
});
