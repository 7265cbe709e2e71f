/**
 * Normalization of Matrix events (unit level; the `/sync` path is in receiver.test.ts).
 */
import { ReceiveValidationError } from "@herald/plugin-sdk/channel-message";
import { describe, expect, it } from "vitest";
import { MatrixEncryptedRoomError } from "./errors.ts";
import { createReceive, stripReplyFallback } from "./receive.ts";

const ROOM = "!r1:fake.test";
const receive = createReceive({ userId: "@herald:fake.test" });
const ctx = { channel: "matrix", accountId: "main", receivedAt: 0 };
const event = (
  type: string,
  content: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) => ({
  room_id: ROOM,
  joined_member_count: 3,
  event: {
    event_id: "$e1",
    type,
    sender: "@alice:fake.test",
    origin_server_ts: 1_700_000_000_000,
    content,
    ...extra,
  },
});

describe("normalize", () => {
  it("a thread message: thread target, anchor at the root, mention from m.mentions", async () => {
    const m = await receive.normalize(
      event("m.room.message", {
        msgtype: "m.text",
        body: "hey",
        "m.mentions": { user_ids: ["@herald:fake.test"] },
        "m.relates_to": { rel_type: "m.thread", event_id: "$root", is_falling_back: true },
      }),
      ctx,
    );
    expect(m).toMatchObject({
      direction: "inbound",
      platformMessageId: "!r1%3Afake.test:$e1",
      target: { kind: "thread", id: ROOM, threadId: "$root" },
      threadAnchor: { threadId: "$root" },
      mentions: { self: true },
      sender: { id: "@alice:fake.test", isBot: false },
    });
  });

  it("m.mentions without the bot is no mention even when the body names it; a notice is a bot", async () => {
    const m = await receive.normalize(
      event("m.room.message", {
        msgtype: "m.notice",
        body: "@herald:fake.test hi",
        "m.mentions": {},
      }),
      ctx,
    );
    expect(m).toMatchObject({ mentions: { self: false }, sender: { isBot: true } });
  });

  it("edits, redactions and membership become typed events", async () => {
    const edited = await receive.normalize(
      event("m.room.message", {
        msgtype: "m.text",
        body: "* fixed",
        "m.new_content": { msgtype: "m.text", body: "fixed" },
        "m.relates_to": { rel_type: "m.replace", event_id: "$orig" },
      }),
      ctx,
    );
    expect(edited).toMatchObject({
      kind: "event",
      type: "message_edited",
      platformMessageId: "!r1%3Afake.test:$orig",
      message: { body: { markdown: "fixed" } },
    });
    expect(
      await receive.normalize(event("m.room.redaction", {}, { redacts: "$gone" }), ctx),
    ).toMatchObject({
      type: "message_deleted",
      platformMessageId: "!r1%3Afake.test:$gone",
    });
    expect(
      await receive.normalize(
        event("m.room.member", { membership: "join" }, { state_key: "@bob:fake.test" }),
        ctx,
      ),
    ).toMatchObject({ type: "member_joined", members: [{ id: "@bob:fake.test" }] });
  });

  it("an encrypted event throws MatrixEncryptedRoomError; a reaction without an annotation is ignored ([H23]: reactions in, reactions.test.ts); a malformed one names the field", async () => {
    expect(() => receive.normalize(event("m.room.encrypted", { ciphertext: "x" }), ctx)).toThrow(
      MatrixEncryptedRoomError,
    );
    expect(await receive.normalize(event("m.reaction", {}), ctx)).toEqual({
      kind: "ignore",
      reason: "malformed",
      detail: "m.reaction without an m.annotation relation",
    });
    expect(await receive.normalize(event("m.sticker", {}), ctx)).toEqual({
      kind: "ignore",
      reason: "not_a_message",
      detail: "m.sticker",
    });
    let error: unknown;
    try {
      await receive.normalize({ room_id: ROOM, event: { type: "m.room.message" } }, ctx);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ReceiveValidationError);
    expect(String((error as Error).message)).toContain("event.event_id");
  });

  it("own ids are the canonical user id, compared case-exactly", () => {
    expect(receive.selfIds?.("main")).toEqual(["@herald:fake.test"]);
    expect(receive.idsCaseInsensitive).toBe(false);
  });
});

describe("stripReplyFallback", () => {
  it("drops the quoted lines and the blank line after them", () => {
    expect(stripReplyFallback("> <@a:x> one\n> two\n\nanswer\nmore")).toBe("answer\nmore");
    expect(stripReplyFallback("no quote")).toBe("no quote");
  });
});
