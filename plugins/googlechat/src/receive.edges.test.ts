/**
 * Normalization edge cases of Chat MESSAGE events ([H22] item 3), on events as the fake builds
 * them with the fields Chat sets on a real @mention: the text is `argumentText` (the app's
 * @mention removed, trimmed) unless that is blank; a top-level message (`threadReply` false) is
 * the space, not a thread, even though it has a `thread.name`; every DM form is direct; who is
 * "us" (`users/app` and the configured app user — not another app, not a person).
 */
import type { ChannelMessage } from "@herald/plugin-sdk/channel-message";
import { afterEach, describe, expect, it } from "vitest";
import { createReceive } from "./receive.ts";
import { ALICE, FAKE_APP, FakeGoogleChat, OTHER_APP } from "./testing/FakeGoogleChat.ts";

let fake: FakeGoogleChat | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const ctx = { channel: "googlechat", accountId: "main", receivedAt: 0 };

async function eventIn(spaceType: "SPACE" | "DIRECT_MESSAGE", reply = false) {
  fake = await FakeGoogleChat.start();
  const space = fake.createSpace(spaceType).name;
  const thread = fake.store.newThread(space);
  const root = fake.store.add({ space, thread, sender: ALICE, text: "root" });
  const m = reply ? fake.store.add({ space, thread, sender: ALICE, text: "reply" }) : root;
  const event = fake.messageEvent(m) as { message: Record<string, unknown> } & Record<
    string,
    unknown
  >;
  const normalize = async (message: Record<string, unknown>, top: Record<string, unknown> = {}) =>
    (await createReceive([FAKE_APP.name]).normalize(
      { ...event, ...top, message: { ...event.message, ...message } },
      ctx,
    )) as ChannelMessage;
  return { space, thread, normalize };
}

describe("the text", () => {
  it("argumentText (the @mention removed) trimmed; the raw text only when argumentText is blank or absent", async () => {
    const { normalize } = await eventIn("SPACE");
    const said = async (m: Record<string, unknown>) => (await normalize(m)).body?.markdown;
    expect(await said({ text: "@herald  deploy *prod*", argumentText: "  deploy *prod* " })).toBe(
      "deploy *prod*",
    );
    expect(await said({ text: "@herald", argumentText: "   " })).toBe("@herald");
    expect(await said({ text: "just text", argumentText: undefined })).toBe("just text");
    expect(await said({ text: undefined, argumentText: undefined })).toBe("");
    expect(await said({ text: "a &lt;b&gt; &amp;", argumentText: "a &lt;b&gt; &amp;" })).toBe(
      "a &lt;b&gt; &amp;",
    );
  });
});

describe("threads and spaces", () => {
  it("a top-level message has a thread.name but is the space (group), anchored on its thread", async () => {
    const { normalize, space, thread } = await eventIn("SPACE");
    const m = await normalize({});
    expect(m.target).toEqual({ kind: "group", id: space });
    expect(m.threadAnchor).toEqual({ threadId: thread });
  });

  it("threadReply without a thread name is the space; a reply with one is that thread", async () => {
    const { normalize, space, thread } = await eventIn("SPACE", true);
    expect((await normalize({})).target).toEqual({
      kind: "thread",
      id: space,
      parentId: space,
      threadId: thread,
    });
    const noThread = await normalize({ thread: undefined });
    expect(noThread.target).toEqual({ kind: "group", id: space });
    expect(noThread).not.toHaveProperty("threadAnchor");
  });

  it("a DM by spaceType, by the older type DM, or singleUserBotDm: direct, no anchor, even as a threadReply", async () => {
    const { normalize, space } = await eventIn("SPACE", true);
    for (const kind of [
      { spaceType: "DIRECT_MESSAGE" },
      { type: "DM" },
      { singleUserBotDm: true },
    ]) {
      const inMessage = await normalize({ space: { name: space, ...kind } });
      expect(inMessage.target).toEqual({ kind: "direct", id: space });
      expect(inMessage).not.toHaveProperty("threadAnchor");
      const inEvent = await normalize({ space: undefined }, { space: { name: space, ...kind } });
      expect(inEvent.target).toEqual({ kind: "direct", id: space });
    }
    const room = await normalize({ space: { name: space, spaceType: "SPACE", type: "ROOM" } });
    expect(room.target.kind).toBe("thread");
  });
});

describe("who counts as us", () => {
  it("users/app and the configured app user are us; another app is a bot, not us; a person neither", async () => {
    const receive = createReceive([FAKE_APP.name]);
    expect(receive.selfIds?.("main")).toEqual(["users/app", FAKE_APP.name]);
    expect(createReceive().selfIds?.("main")).toEqual(["users/app"]);
    expect(createReceive(["users/app"]).selfIds?.("main")).toEqual(["users/app"]);
    const { normalize } = await eventIn("SPACE");
    const other = await normalize({ sender: OTHER_APP });
    expect(other.sender).toEqual({
      id: OTHER_APP.name,
      displayName: OTHER_APP.displayName,
      isBot: true,
    });
    expect(receive.selfIds?.("main")).not.toContain(OTHER_APP.name);
    const person = await normalize({ sender: { name: ALICE.name, type: "HUMAN" } });
    expect(person.sender).toEqual({ id: ALICE.name, isBot: false });
  });

  it("the timestamp is createTime; an unparseable one is left out", async () => {
    const { normalize } = await eventIn("SPACE");
    expect((await normalize({ createTime: "2026-01-02T03:04:05.678Z" })).timestamp).toBe(
      Date.parse("2026-01-02T03:04:05.678Z"),
    );
    expect(await normalize({ createTime: "yesterday" })).not.toHaveProperty("timestamp");
    expect(await normalize({ createTime: undefined })).not.toHaveProperty("timestamp");
  });
});

describe("the message and membership events", () => {
  it("a message: id, account, direction, addressed to the app; none without an account", async () => {
    const { normalize } = await eventIn("SPACE");
    const m = await normalize({});
    expect(m).toMatchObject({
      id: `googlechat:${m.platformMessageId}`,
      accountId: "main",
      direction: "inbound",
      mentions: { self: true },
    });
    const raw = m.raw as Record<string, unknown>;
    const bare = (await createReceive().normalize(raw, {
      channel: "googlechat",
      receivedAt: 0,
    })) as ChannelMessage;
    expect(bare).not.toHaveProperty("accountId");
  });

  it("ADDED_TO_SPACE / REMOVED_FROM_SPACE: member events of the app, the user as actor, in a DM or a space", async () => {
    fake = await FakeGoogleChat.start();
    const space = fake.createSpace("SPACE").name;
    const dm = fake.createSpace("DIRECT_MESSAGE").name;
    const receive = createReceive([FAKE_APP.name]);
    const added = fake.membershipEvent("ADDED_TO_SPACE", space) as Record<string, unknown>;
    expect(await receive.normalize(added, ctx)).toEqual({
      kind: "event",
      type: "member_joined",
      id: `member_joined:${space}:${added.eventTime}`,
      channel: "googlechat",
      accountId: "main",
      target: { kind: "group", id: space },
      actor: { id: ALICE.name, displayName: "Alice", isBot: false },
      members: [{ id: "users/app", isBot: true, isSelf: true }],
      timestamp: Date.parse(added.eventTime as string),
      raw: added,
    });
    const removed = {
      ...fake.membershipEvent("REMOVED_FROM_SPACE", dm, OTHER_APP),
      eventTime: undefined,
    };
    expect(await receive.normalize(removed, { channel: "googlechat", receivedAt: 0 })).toEqual({
      kind: "event",
      type: "member_left",
      id: `member_left:${dm}:`,
      channel: "googlechat",
      target: { kind: "direct", id: dm },
      actor: { id: OTHER_APP.name, displayName: OTHER_APP.displayName, isBot: true },
      members: [{ id: "users/app", isBot: true, isSelf: true }],
      raw: removed,
    });
    expect(
      await receive.normalize(removed, { channel: "googlechat", receivedAt: 0 }),
    ).not.toHaveProperty("accountId");
    const { user: _u, ...noUser } = fake.membershipEvent("ADDED_TO_SPACE", space);
    const anonymous = await receive.normalize({ ...noUser, eventTime: "not a time" }, ctx);
    expect(anonymous).not.toHaveProperty("actor");
    expect(anonymous).not.toHaveProperty("timestamp");
    const { displayName: _d, ...nameless } = ALICE;
    expect(
      await receive.normalize(
        { ...fake.membershipEvent("ADDED_TO_SPACE", space), user: nameless },
        ctx,
      ),
    ).toMatchObject({ actor: { id: ALICE.name, isBot: false } });
    expect(await receive.normalize({ ...added, type: "WIDGET_UPDATED" }, ctx)).toEqual({
      kind: "ignore",
      reason: "event_type",
      detail: "WIDGET_UPDATED",
    });
    // A click ([H23]) without the function it invoked cannot be routed: a validation error
    // naming the field (dead-lettered), never ignored.
    await expect(
      (async () => receive.normalize({ ...added, type: "CARD_CLICKED" }, ctx))(),
    ).rejects.toThrow(/action/);
  });
});
