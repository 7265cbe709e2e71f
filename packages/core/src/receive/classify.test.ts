/**
 * Event classes and the self-author check ([H22] item 3: "who counts as us"): core's default
 * class, filling optional fields, merging the classes of one message's several event types, and
 * `isSelfAuthored` — the adapter's `isSelf` flag, or any author id among the self ids of the
 * message's account, compared trimmed and (only when the platform says so) case-insensitively.
 * Another bot, an id that merely contains ours, another account's ids: not us.
 */
import { describe, expect, it } from "vitest";
import type { MessageEventClass, MessageReceiveAdapter } from "../adapter/receive.ts";
import type { ChannelMessage } from "../message/message.ts";
import {
  canonicalId,
  completeEventClass,
  defaultEventClass,
  isSelfAuthored,
  mergeEventClass,
} from "./classify.ts";

const message = (over: Partial<ChannelMessage> = {}): ChannelMessage =>
  ({
    id: "m1",
    channel: "acme",
    direction: "inbound",
    target: { kind: "group", id: "room" },
    sender: { id: "U1", isBot: false },
    body: { markdown: "hi" },
    ...over,
  }) as ChannelMessage;

const klass = (over: Partial<MessageEventClass> = {}): MessageEventClass => ({
  eventType: "message",
  eventTypes: ["message"],
  isBotAuthor: false,
  isRoomish: true,
  mentionsSelf: false,
  ...over,
});

const adapter = (
  ids: Record<string, readonly string[]>,
  caseInsensitive?: boolean,
): MessageReceiveAdapter =>
  ({
    normalize: () => {
      throw new Error("unused");
    },
    selfIds: (accountId: string | undefined) => ids[accountId ?? "default"] ?? [],
    ...(caseInsensitive !== undefined ? { idsCaseInsensitive: caseInsensitive } : {}),
  }) as unknown as MessageReceiveAdapter;

describe("defaultEventClass", () => {
  it("derives bot, room, mention and author from the message", () => {
    expect(defaultEventClass(message())).toEqual({
      eventType: "message",
      eventTypes: ["message"],
      isBotAuthor: false,
      isRoomish: true,
      mentionsSelf: false,
      authorIds: ["U1"],
    });
    expect(
      defaultEventClass(
        message({
          target: { kind: "direct", id: "dm" },
          sender: { id: "B1", isBot: true },
          mentions: { self: true },
        }),
      ),
    ).toMatchObject({ isBotAuthor: true, isRoomish: false, mentionsSelf: true });
    const { sender: _s, ...anonymous } = message();
    expect(defaultEventClass(anonymous as ChannelMessage)).not.toHaveProperty("authorIds");
  });
});

describe("completeEventClass", () => {
  it("fills eventTypes from eventType and authorIds from the sender; keeps what the adapter gave", () => {
    expect(completeEventClass(klass({ eventType: "x", eventTypes: [] }), message())).toMatchObject({
      eventTypes: ["x"],
      authorIds: ["U1"],
    });
    expect(
      completeEventClass(klass({ eventTypes: ["a", "b"], authorIds: ["W9"] }), message()),
    ).toMatchObject({ eventTypes: ["a", "b"], authorIds: ["W9"] });
    const { sender: _s, ...anonymous } = message();
    expect(completeEventClass(klass(), anonymous as ChannelMessage).authorIds).toEqual([]);
  });
});

describe("mergeEventClass", () => {
  it("ORs the flags, unites types and authors in arrival order, keeps the first eventType, marks edits", () => {
    const into = klass({ eventType: "message", authorIds: ["U1"] });
    mergeEventClass(
      into,
      klass({
        eventType: "app_mention",
        eventTypes: ["app_mention", "message"],
        authorIds: ["U1", "A1"],
        isBotAuthor: true,
        isRoomish: false,
        mentionsSelf: true,
        isEdit: true,
      }),
    );
    expect(into).toEqual({
      eventType: "message",
      eventTypes: ["message", "app_mention"],
      authorIds: ["U1", "A1"],
      isBotAuthor: true,
      isRoomish: true,
      mentionsSelf: true,
      isEdit: true,
    });
    const plain = klass({ isRoomish: false });
    mergeEventClass(plain, klass({ isRoomish: false }));
    expect(plain).toMatchObject({ isBotAuthor: false, isRoomish: false, mentionsSelf: false });
    expect(plain).not.toHaveProperty("isEdit");
    expect(plain.authorIds).toEqual([]);
  });
});

describe("canonicalId", () => {
  it("trims; lower-cases only for case-insensitive platforms", () => {
    expect(canonicalId("  @Bot:HS ", false)).toBe("@Bot:HS");
    expect(canonicalId("  @Bot:HS ", true)).toBe("@bot:hs");
  });
});

describe("isSelfAuthored: who counts as us", () => {
  it("a message without a sender is checked by its author ids only", () => {
    const { sender: _s, ...anonymous } = message({ accountId: "main" });
    const a = adapter({ main: ["U_BOT"] });
    expect(isSelfAuthored(anonymous as ChannelMessage, klass({ authorIds: ["U_BOT"] }), a)).toBe(
      true,
    );
    expect(isSelfAuthored(anonymous as ChannelMessage, klass({ authorIds: ["X"] }), a)).toBe(false);
  });

  it("the adapter's isSelf flag alone is enough (no self ids needed)", () => {
    expect(
      isSelfAuthored(
        message({ sender: { id: "X", isBot: true, isSelf: true } }),
        klass({ authorIds: ["X"] }),
        adapter({}),
      ),
    ).toBe(true);
  });

  it("any author id among the account's self ids; another bot, a look-alike id, no self ids: not us", () => {
    const a = adapter({ main: ["U_BOT", "A_APP"], other: ["U_OTHER"] });
    const m = message({ accountId: "main" });
    expect(isSelfAuthored(m, klass({ authorIds: ["W1", "A_APP"] }), a)).toBe(true);
    expect(isSelfAuthored(m, klass({ authorIds: ["U_BOT"] }), a)).toBe(true);
    expect(isSelfAuthored(m, klass({ authorIds: ["U_OTHER"], isBotAuthor: true }), a)).toBe(false);
    expect(isSelfAuthored(m, klass({ authorIds: ["U_BOT2", "XU_BOT"] }), a)).toBe(false);
    expect(isSelfAuthored(m, klass({}), a)).toBe(false);
    // The same bot's other account: its own ids are checked for its own messages.
    expect(
      isSelfAuthored(message({ accountId: "other" }), klass({ authorIds: ["U_OTHER"] }), a),
    ).toBe(true);
    expect(isSelfAuthored(m, klass({ authorIds: [""] }), adapter({ main: [] }))).toBe(false);
    const { selfIds: _none, ...noSelfIds } = a;
    expect(isSelfAuthored(m, klass({ authorIds: ["U_BOT"] }), noSelfIds)).toBe(false);
  });

  it("ids compare trimmed; case-insensitively only when the adapter says so", () => {
    const m = message({ accountId: "main" });
    expect(isSelfAuthored(m, klass({ authorIds: [" U_BOT "] }), adapter({ main: ["U_BOT"] }))).toBe(
      true,
    );
    expect(isSelfAuthored(m, klass({ authorIds: ["u_bot"] }), adapter({ main: ["U_BOT"] }))).toBe(
      false,
    );
    expect(
      isSelfAuthored(m, klass({ authorIds: ["u_bot"] }), adapter({ main: ["U_BOT"] }, false)),
    ).toBe(false);
    expect(
      isSelfAuthored(m, klass({ authorIds: ["u_bot"] }), adapter({ main: [" U_BOT"] }, true)),
    ).toBe(true);
  });
});
