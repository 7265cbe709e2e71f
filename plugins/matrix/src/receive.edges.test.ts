/**
 * Normalization edge cases of Matrix events ([H22] item 3: the kinds of bug planted ones slipped
 * through): who counts as "us" (the canonical user id, case-exact — not another bot, not a
 * look-alike id), the text as sent (reply fallbacks stripped only off replies, quotes that are
 * no fallback kept, emotes), room shapes at their boundaries (a room of 2 is direct, of 3 a
 * group; a thread without a root event id is no thread), mentions, edits, redactions and
 * membership. Unit level, events shaped as the spec's client format (the `/sync` path is in
 * receiver.test.ts).
 */
import {
  type ChannelMessage,
  type InboundEvent,
  type MessageEventClass,
  ReceiveValidationError,
} from "@herald/plugin-sdk/channel-message";
import { describe, expect, it } from "vitest";
import { createReceive, stripReplyFallback, threadRootOfEvent } from "./receive.ts";

const ROOM = "!r1:fake.test";
const ME = "@herald:fake.test";
const REF = (id: string) => `!r1%3Afake.test:${id}`;
const identity: { userId: string | undefined } = { userId: ME };
const receive = createReceive(identity);
const ctx = { channel: "matrix", accountId: "main", receivedAt: 0 };

const input = (
  type: string,
  content: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  members: number | undefined = 3,
) => ({
  room_id: ROOM,
  ...(members !== undefined ? { joined_member_count: members } : {}),
  event: {
    event_id: "$e1",
    type,
    sender: "@alice:fake.test",
    origin_server_ts: 1_700_000_000_000,
    content,
    ...extra,
  },
});
const text = (body: string, more: Record<string, unknown> = {}) => ({
  msgtype: "m.text",
  body,
  ...more,
});
const normalize = (raw: unknown, accountId: string | null = "main") =>
  receive.normalize(raw, {
    channel: ctx.channel,
    receivedAt: ctx.receivedAt,
    ...(accountId !== null ? { accountId } : {}),
  }) as ChannelMessage | InboundEvent | { kind: "ignore"; reason: string; detail?: string };
const message = (raw: unknown) => normalize(raw) as ChannelMessage;
const classify = (raw: unknown): MessageEventClass =>
  receive.classify?.(message(raw), raw) as MessageEventClass;
const isSelf = (raw: unknown) => {
  const mine = new Set(receive.selfIds?.("main") ?? []);
  return (classify(raw).authorIds ?? []).some((id) => mine.has(id));
};

describe("who counts as us", () => {
  it("our own user id is us: authorIds name the sender, the message is marked isSelf", () => {
    const raw = input("m.room.message", text("echo"), { sender: ME });
    expect(isSelf(raw)).toBe(true);
    expect(message(raw).sender).toEqual({ id: ME, isBot: false, isSelf: true });
  });

  it("another bot (m.notice), another user whose id differs only by case or server, are not us", () => {
    for (const sender of [
      "@other-bot:fake.test",
      "@Herald:fake.test",
      "@herald:other.test",
      "@herald:fake.test.evil",
    ]) {
      const raw = input("m.room.message", { msgtype: "m.notice", body: "hi" }, { sender });
      expect(isSelf(raw)).toBe(false);
      expect(message(raw).sender).toEqual({ id: sender, isBot: true });
      expect(classify(raw)).toMatchObject({ isBotAuthor: true, authorIds: [sender] });
    }
  });

  it("before /whoami answered nobody is us, and nothing mentions us", () => {
    identity.userId = undefined;
    try {
      expect(receive.selfIds?.("main")).toEqual([]);
      const raw = input("m.room.message", text("undefined", { "m.mentions": { user_ids: [] } }));
      expect(message(raw).sender).toEqual({ id: "@alice:fake.test", isBot: false });
      expect(message(raw).mentions).toEqual({ self: false });
      expect(message(input("m.room.message", text("undefined"))).mentions).toEqual({
        self: false,
      });
    } finally {
      identity.userId = ME;
    }
  });

  it("the account id is stamped on messages and events, and left out when the context has none", () => {
    const raw = input("m.room.message", text("x"));
    expect(message(raw).accountId).toBe("main");
    expect(normalize(raw, null)).not.toHaveProperty("accountId");
    const member = input("m.room.member", { membership: "join" }, { state_key: "@bob:fake.test" });
    expect(normalize(member)).toMatchObject({ accountId: "main" });
    expect(normalize(member, null)).not.toHaveProperty("accountId");
  });
});

describe("the text as sent", () => {
  it("a reply's fallback is stripped; a body that merely starts with a quote (no m.in_reply_to) is kept", () => {
    const fallback = "> <@bob:fake.test> question?\n> more\n\nthe answer";
    const reply = input(
      "m.room.message",
      text(fallback, { "m.relates_to": { "m.in_reply_to": { event_id: "$q" } } }),
    );
    expect(message(reply).body).toEqual({ markdown: "the answer", literal: true });
    expect(message(input("m.room.message", text(fallback))).body?.markdown).toBe(fallback);
  });

  it("stripReplyFallback: only leading '> ' lines; no blank line after them; a '>' without space; nothing after", () => {
    expect(stripReplyFallback("> <@a:x> q\nanswer")).toBe("answer");
    expect(stripReplyFallback("> <@a:x> q\n>\n> still quoted\n\n\nkept blank")).toBe(
      "\nkept blank",
    );
    expect(stripReplyFallback(">not a fallback\nx")).toBe(">not a fallback\nx");
    expect(stripReplyFallback("> only a quote")).toBe("");
    expect(stripReplyFallback("a\n> b")).toBe("a\n> b");
    expect(stripReplyFallback("")).toBe("");
  });

  it("escapes, markup characters and entities in the body are kept literally; an emote is '* body'", () => {
    const body = "\\*not bold\\* <b>&amp;</b> `code` _x_ &lt;";
    expect(message(input("m.room.message", text(body))).body).toEqual({
      markdown: body,
      literal: true,
    });
    expect(
      message(input("m.room.message", { msgtype: "m.emote", body: "waves" })).body?.markdown,
    ).toBe("* waves");
    expect(message(input("m.room.message", { msgtype: "m.text" })).body?.markdown).toBe("");
    expect(message(input("m.room.message", { msgtype: "m.text", body: 42 })).body?.markdown).toBe(
      "",
    );
  });

  it("files (m.image) are messages ([H23]); other msgtypes (m.location, none) are ignored with the msgtype", () => {
    expect(normalize(input("m.room.message", { msgtype: "m.image", body: "a.png" }))).toMatchObject(
      {
        direction: "inbound",
        body: { markdown: "a.png" },
      },
    );
    expect(normalize(input("m.room.message", { msgtype: "m.location", body: "here" }))).toEqual({
      kind: "ignore",
      reason: "unsupported_msgtype",
      detail: "m.location",
    });
    expect(normalize(input("m.room.message", { body: "x" }))).toEqual({
      kind: "ignore",
      reason: "unsupported_msgtype",
      detail: "undefined",
    });
  });
});

describe("rooms and threads at their boundaries", () => {
  it("2 joined members (or 1): direct; 3: a group; unknown: a group", () => {
    const kind = (members: number | undefined) =>
      message(input("m.room.message", text("x"), {}, members)).target.kind;
    expect(kind(1)).toBe("direct");
    expect(kind(2)).toBe("direct");
    expect(kind(3)).toBe("group");
    expect(kind(undefined)).toBe("group");
    expect(classify(input("m.room.message", text("x"), {}, 2)).isRoomish).toBe(false);
    expect(classify(input("m.room.message", text("x"), {}, 3)).isRoomish).toBe(true);
  });

  it("a thread needs m.thread and a root id; a plain reply or an m.thread without event_id stays in the room", () => {
    expect(threadRootOfEvent({ "m.relates_to": { rel_type: "m.thread", event_id: "$root" } })).toBe(
      "$root",
    );
    expect(threadRootOfEvent({ "m.relates_to": { rel_type: "m.thread" } })).toBeUndefined();
    expect(
      threadRootOfEvent({ "m.relates_to": { rel_type: "m.reference", event_id: "$x" } }),
    ).toBeUndefined();
    expect(threadRootOfEvent({})).toBeUndefined();
    const inThread = message(
      input(
        "m.room.message",
        text("in a DM thread", {
          "m.relates_to": { rel_type: "m.thread", event_id: "$root" },
        }),
        {},
        2,
      ),
    );
    // A thread wins over the room's size.
    expect(inThread.target).toEqual({
      kind: "thread",
      id: ROOM,
      parentId: ROOM,
      threadId: "$root",
    });
    expect(inThread.threadAnchor).toEqual({ threadId: "$root" });
    const reply = message(
      input(
        "m.room.message",
        text("a reply", { "m.relates_to": { "m.in_reply_to": { event_id: "$q" } } }),
      ),
    );
    expect(reply.target).toEqual({ kind: "group", id: ROOM });
    expect(reply.threadAnchor).toEqual({ threadId: "$e1" });
  });
});

describe("mentions", () => {
  it("m.mentions decides when present (user_ids must be a list naming us); without it, the body", () => {
    const self = (content: Record<string, unknown>) =>
      message(input("m.room.message", content)).mentions?.self;
    expect(self(text("hi", { "m.mentions": { user_ids: [ME] } }))).toBe(true);
    expect(self(text(`hi ${ME}`, { "m.mentions": { user_ids: ["@bob:fake.test"] } }))).toBe(false);
    expect(self(text(`hi ${ME}`, { "m.mentions": { user_ids: ME } }))).toBe(false);
    expect(self(text(`hi ${ME}`))).toBe(true);
    expect(self(text("hi herald"))).toBe(false);
    // A non-object m.mentions is no m.mentions: the body decides.
    expect(self(text(`hi ${ME}`, { "m.mentions": "x" }))).toBe(true);
  });

  it("a reply's fallback quoting us is no mention (the stripped body decides)", () => {
    const reply = input(
      "m.room.message",
      text(`> <${ME}> my earlier words\n\nthanks`, {
        "m.relates_to": { "m.in_reply_to": { event_id: "$q" } },
      }),
    );
    expect(message(reply).mentions).toEqual({ self: false });
  });
});

describe("events", () => {
  it("an edit: the new content (a notice stays a bot), the original's ref, its own id", () => {
    const edited = normalize(
      input("m.room.message", {
        msgtype: "m.text",
        body: "* fixed",
        "m.new_content": { msgtype: "m.notice", body: "fixed" },
        "m.relates_to": { rel_type: "m.replace", event_id: "$orig" },
      }),
    );
    expect(edited).toMatchObject({
      kind: "event",
      type: "message_edited",
      id: `edited:${REF("$e1")}`,
      channel: "matrix",
      platformMessageId: REF("$orig"),
      actor: { id: "@alice:fake.test" },
      timestamp: 1_700_000_000_000,
      target: { kind: "group", id: ROOM },
      message: {
        platformMessageId: REF("$orig"),
        body: { markdown: "fixed" },
        sender: { isBot: true },
      },
    });
    expect(
      normalize(
        input("m.room.message", {
          msgtype: "m.text",
          body: "* fixed",
          "m.relates_to": { rel_type: "m.replace", event_id: "$orig" },
        }),
      ),
    ).toEqual({ kind: "ignore", reason: "malformed", detail: "m.replace without m.new_content" });
    // m.replace without the edited event's id: an ordinary message.
    expect(
      message(
        input("m.room.message", {
          msgtype: "m.text",
          body: "x",
          "m.new_content": { msgtype: "m.text", body: "y" },
          "m.relates_to": { rel_type: "m.replace" },
        }),
      ).body?.markdown,
    ).toBe("x");
  });

  it("a redaction names the redacted event, from the top level (v1–v10) or content (v11+)", () => {
    expect(normalize(input("m.room.redaction", { redacts: "$gone" }))).toMatchObject({
      type: "message_deleted",
      id: `deleted:${REF("$e1")}`,
      platformMessageId: REF("$gone"),
    });
    expect(
      normalize(input("m.room.redaction", { redacts: "$content" }, { redacts: "$top" })),
    ).toMatchObject({ platformMessageId: REF("$top") });
    expect(normalize(input("m.room.redaction", {}))).toEqual({
      kind: "ignore",
      reason: "malformed",
      detail: "redaction without redacts",
    });
  });

  it("membership: join → joined; leave and ban → left (of the state_key, else the sender); invite ignored", () => {
    const member = (membership: string, extra: Record<string, unknown> = {}) =>
      normalize(input("m.room.member", { membership }, extra));
    expect(member("join", { state_key: "@bob:fake.test" })).toMatchObject({
      type: "member_joined",
      id: `member:${REF("$e1")}`,
      members: [{ id: "@bob:fake.test" }],
    });
    expect(member("leave", { state_key: "@bob:fake.test" })).toMatchObject({
      type: "member_left",
      members: [{ id: "@bob:fake.test" }],
    });
    expect(member("ban", { state_key: "@eve:fake.test" })).toMatchObject({
      type: "member_left",
      members: [{ id: "@eve:fake.test" }],
    });
    expect(member("leave")).toMatchObject({ members: [{ id: "@alice:fake.test" }] });
    expect(member("invite", { state_key: "@bob:fake.test" })).toEqual({
      kind: "ignore",
      reason: "membership",
      detail: "invite",
    });
  });

  it("a message: ids, timestamp, raw, classify; dedupe by the event ref", () => {
    const raw = input("m.room.message", text("x"));
    const m = message(raw);
    expect(m).toMatchObject({
      id: `matrix:${REF("$e1")}`,
      channel: "matrix",
      direction: "inbound",
      platformMessageId: REF("$e1"),
      timestamp: 1_700_000_000_000,
      raw,
    });
    expect(classify(raw)).toEqual({
      eventType: "m.room.message",
      eventTypes: ["m.room.message"],
      isBotAuthor: false,
      isRoomish: true,
      mentionsSelf: false,
      authorIds: ["@alice:fake.test"],
    });
    expect(receive.dedupeIdentity?.(m, undefined as never)).toBe(REF("$e1"));
    const { platformMessageId: _p, ...noRef } = m;
    expect(receive.dedupeIdentity?.(noRef, undefined as never)).toBe(m.id);
  });
});

describe("malformed input", () => {
  it("ids without their sigil ($ event, @ user, ! room) are validation errors naming the field", () => {
    const fail = (raw: unknown) => {
      try {
        normalize(raw);
      } catch (error) {
        expect(error).toBeInstanceOf(ReceiveValidationError);
        return (error as Error).message;
      }
      throw new Error("accepted");
    };
    expect(fail(input("m.room.message", text("x"), { event_id: "e1" }))).toContain(
      "event.event_id",
    );
    expect(fail(input("m.room.message", text("x"), { sender: "alice:fake.test" }))).toContain(
      "event.sender",
    );
    expect(fail({ ...input("m.room.message", text("x")), room_id: "r1:fake.test" })).toContain(
      "room_id",
    );
  });

  it("a malformed piece of a /sync answer is dead-lettered with its path and problem", () => {
    let error: unknown;
    try {
      normalize({
        sync_path: "rooms.join.!r1:fake.test.timeline.events",
        problem: "expected an array",
        value: 7,
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ReceiveValidationError);
    expect((error as ReceiveValidationError).issues).toEqual([
      { path: "rooms.join.!r1:fake.test.timeline.events", message: "expected an array" },
    ]);
  });

  it("an m.replace whose m.new_content is no object is malformed, not an edit", () => {
    expect(
      normalize(
        input("m.room.message", {
          msgtype: "m.text",
          body: "* fixed",
          "m.new_content": "fixed",
          "m.relates_to": { rel_type: "m.replace", event_id: "$orig" },
        }),
      ),
    ).toEqual({ kind: "ignore", reason: "malformed", detail: "m.replace without m.new_content" });
  });

  it("classify carries a mention of us", () => {
    const raw = input("m.room.message", text("hi", { "m.mentions": { user_ids: [ME] } }));
    expect(classify(raw)).toMatchObject({ mentionsSelf: true, isBotAuthor: false });
  });

  it("classify without the raw event or without sender and mentions: an m.room.message by nobody, no bot, no mention", () => {
    const m = message(input("m.room.message", text("x")));
    const { sender: _s, mentions: _m, ...bare } = m;
    expect(receive.classify?.(bare as ChannelMessage, {})).toEqual({
      eventType: "m.room.message",
      eventTypes: ["m.room.message"],
      isBotAuthor: false,
      isRoomish: true,
      mentionsSelf: false,
      authorIds: [],
    });
  });
});
