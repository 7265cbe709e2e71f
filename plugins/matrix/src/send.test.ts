/**
 * What the adapter puts on the wire, read back from the fake homeserver's stored events:
 * sanitized `formatted_body` on every path (C32), `m.replace` edits on the original with
 * complete `m.new_content` and only new mentions at the top level, the final edit winning (C33),
 * threads with the reply fallback, origin content keys, the 64 KiB event budget.
 */
import { gatewayFailureOrigin } from "@herald/plugin-sdk/channel-message";
import { describe, expect, it } from "vitest";
import { MatrixHttp } from "./client.ts";
import { MatrixEncryptedRoomError } from "./errors.ts";
import { ORIGIN_CONTENT_KEY, SENT_CONTENT_KEY } from "./origin.ts";
import { EncryptedRooms } from "./rooms.ts";
import { createSend, eventRef } from "./send.ts";
import { openBench } from "./testing/bench.ts";
import { ALICE } from "./testing/FakeHomeserver.ts";

const C32_TEXT =
  "**<Sorunome>** test <img src=x onerror=alert(1)> [click](javascript:alert(1)) [ok](https://ex.test/?a=1&b=2)";
const C32_HTML =
  '<strong>&lt;Sorunome&gt;</strong> test &lt;img src=x onerror=alert(1)&gt; click <a href="https://ex.test/?a=1&amp;b=2">ok</a>';

/**
 * HTML as a reader's client parses it: character references decoded to one spelling
 * (`&#x3C;` = `&lt;`, `>` = `&gt;` in text), and a message that is one paragraph unwrapped
 * (Element renders `<p>x</p>` and `x` alike). The SDK's serializer writes `&#x3C;` and `<p>`.
 */
function asParsed(html: string): string {
  const single = /^<p>((?:(?!<p>).)*)<\/p>$/s.exec(html);
  const inner = single ? (single[1] as string) : html;
  // Text between tags: one spelling of each reference (`&#x3C;`/`&lt;`, `&#x26;`/`&amp;`, `>`/`&gt;`).
  return inner
    .replace(/(^|>)([^<]*)/g, (_, open: string, text: string) => {
      const decoded = text
        .replace(/&#x3C;|&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/&#x26;|&amp;/g, "&");
      return open + decoded.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    })
    .replace(
      /href="([^"]*)"/g,
      (_, href: string) => `href="${href.replace(/&#x26;|&amp;/g, "&").replace(/&/g, "&amp;")}"`,
    );
}

type Content = Record<string, unknown>;
const relOf = (c: Content) => c["m.relates_to"] as Record<string, unknown> | undefined;

describe("C32 · formatted_body escaping", () => {
  it("C32: through a reply, a tool message and a final m.replace edit, formatted_body is the sanitized HTML and body plain text", async () => {
    const b = await openBench();
    const { roomId, target } = b.room();
    const question = b.fake.post({ room: roomId, sender: ALICE.userId, body: "hi bot" });
    const reply = await b.runtime.send(
      b.say(target, C32_TEXT, {
        relation: { kind: "reply", replyToId: question.event_id, placement: "quote" },
      }),
    );
    const tool = await b.runtime.send(
      b.say(target, C32_TEXT, { relation: { kind: "system", reason: "message_tool" } }),
    );
    await b.runtime.edit(tool, b.say(target, C32_TEXT));
    const stored = b.fake.rooms.events.filter(
      (e) => e.type === "m.room.message" && e.sender !== ALICE.userId,
    );
    expect(stored).toHaveLength(3);
    const [replyEvent, toolEvent, editEvent] = stored.map((e) => e.content);
    const bodies = [replyEvent, toolEvent, editEvent?.["m.new_content"] as Content];
    for (const c of bodies) {
      expect(c?.format).toBe("org.matrix.custom.html");
      expect(asParsed(String(c?.formatted_body))).toBe(C32_HTML);
      expect(c?.body).toBe("<Sorunome> test <img src=x onerror=alert(1)> click ok");
      expect(String(c?.formatted_body)).not.toMatch(/<img|javascript:|onerror=[^)]*>/);
    }
    expect(asParsed(String(editEvent?.formatted_body).replace(/^\* /, ""))).toBe(C32_HTML);
    expect(relOf(replyEvent as Content)).toEqual({
      "m.in_reply_to": { event_id: question.event_id },
    });
    expect(reply.parts[0]?.replyToId).toContain(question.event_id);
  });
});

describe("C33 · edits target the original", () => {
  it("C33: preview $d, edit 1 → $x1, edit 2, final: every edit relates m.replace to $d with complete m.new_content; only new mentions at the top level", async () => {
    const b = await openBench();
    const { roomId, target } = b.room();
    const draft = await b.runtime.send(b.say(target, "drafting for @alice:fake.test"));
    const d = draft.primaryPlatformMessageId?.split(":").at(-1) as string;
    const e1 = await b.runtime.edit(draft, b.say(target, "edit one for @alice:fake.test"));
    const e2 = await b.runtime.edit(e1, b.say(target, "edit two, also @bob:fake.test"));
    await b.runtime.edit(e2, b.say(target, "**final** for @alice:fake.test and @bob:fake.test"));
    const edits = b.fake.rooms.events.filter((e) => relOf(e.content)?.rel_type === "m.replace");
    expect(edits).toHaveLength(3);
    for (const e of edits) expect(relOf(e.content)).toEqual({ rel_type: "m.replace", event_id: d });
    const [x1] = edits;
    expect(edits.some((e) => relOf(e.content)?.event_id === x1?.event_id)).toBe(false);
    for (const e of edits) {
      const nc = e.content["m.new_content"] as Content;
      expect(Object.keys(nc).sort()).toEqual([
        "body",
        "format",
        "formatted_body",
        "m.mentions",
        "msgtype",
      ]);
      expect(nc["m.relates_to"]).toBeUndefined();
    }
    expect(edits.map((e) => e.content["m.mentions"])).toEqual([
      { user_ids: [] },
      { user_ids: ["@bob:fake.test"] },
      { user_ids: [] },
    ]);
    const finalContent = edits[2]?.content["m.new_content"] as Content | undefined;
    expect(finalContent?.["m.mentions"]).toEqual({
      user_ids: ["@alice:fake.test", "@bob:fake.test"],
    });
    expect(b.fake.visible(roomId).map((m) => m.text)).toEqual([
      "final for @alice:fake.test and @bob:fake.test",
    ]);
  });

  it("C33: the fake stamps edit 2 and the final with one origin_server_ts and orders edit 2 first by event id: the final is sent again, strictly later, and wins", async () => {
    const b = await openBench();
    const { roomId, target } = b.room();
    const draft = await b.runtime.send(b.say(target, "draft"));
    const e1 = await b.runtime.edit(draft, b.say(target, "edit one"));
    const ts = Date.now() + 5_000;
    // Edit 2 gets the larger id: with equal timestamps it would beat the final.
    b.fake.rooms.nextTimestamps.push(ts, ts);
    b.fake.rooms.nextEventIds.push(`$zzzz${"z".repeat(39)}`, `$aaaa${"a".repeat(39)}`);
    const e2 = await b.runtime.edit(e1, b.say(target, "edit two"));
    b.fake.rooms.nextTimestamps.push(ts + 1);
    await b.runtime.edit(e2, b.say(target, "the final text"));
    expect(b.fake.visible(roomId).map((m) => m.text)).toEqual(["the final text"]);
    const finals = b.fake.rooms.events.filter(
      (e) => (e.content["m.new_content"] as Content | undefined)?.body === "the final text",
    );
    expect(finals).toHaveLength(2);
    expect(finals[1]?.origin_server_ts).toBeGreaterThan(ts);
  });
});

describe("threads, origin, size", () => {
  it("a thread reply carries m.thread on the root with the reply fallback on every part", async () => {
    const b = await openBench({ config: { maxTextLength: 20 } });
    const { roomId } = b.room();
    const root = b.fake.post({ room: roomId, sender: ALICE.userId, body: "root" });
    const thread = {
      kind: "thread" as const,
      id: roomId,
      parentId: roomId,
      threadId: root.event_id,
    };
    await b.runtime.send(b.say(thread, "one two three four five six seven eight nine ten"));
    const parts = b.fake.rooms.events.filter(
      (e) => e.sender !== ALICE.userId && e.type === "m.room.message",
    );
    expect(parts.length).toBeGreaterThanOrEqual(2);
    // The fallback's m.in_reply_to is the latest event in the thread (spec "Threading"): the
    // root for the first part, then each previous part — not the root every time.
    parts.forEach((p, i) => {
      expect(relOf(p.content)).toEqual({
        rel_type: "m.thread",
        event_id: root.event_id,
        is_falling_back: true,
        "m.in_reply_to": { event_id: i === 0 ? root.event_id : parts[i - 1]?.event_id },
      });
    });
  });

  it("a reply placed in the thread of the message it answers falls back m.in_reply_to that message, the latest in the thread (not the root)", async () => {
    const b = await openBench();
    const { roomId } = b.room();
    const root = b.fake.post({ room: roomId, sender: ALICE.userId, body: "root" });
    const question = b.fake.post({
      room: roomId,
      sender: ALICE.userId,
      body: "a question in the thread",
      thread: root.event_id,
    });
    const target = { kind: "group" as const, id: roomId };
    await b.runtime.send(
      b.say(target, "the answer", {
        relation: {
          kind: "reply",
          replyToId: eventRef(roomId, question.event_id),
          threadId: root.event_id,
          placement: "thread",
        },
      }),
    );
    const answer = b.fake.rooms.messagesOf(roomId).at(-1);
    expect(relOf(answer?.content ?? {})).toEqual({
      rel_type: "m.thread",
      event_id: root.event_id,
      is_falling_back: true,
      "m.in_reply_to": { event_id: question.event_id },
    });
  });

  it("puts a herald origin in dev.herald.origin and the sent marker on every event", async () => {
    const b = await openBench();
    const { roomId, target } = b.room();
    const origin = gatewayFailureOrigin("missing_api_key");
    await b.runtime.send(b.say(target, "Agent failed before reply", { origin }));
    await b.runtime.send(b.say(target, "plain"));
    const [tagged, plain] = b.fake.rooms.messagesOf(roomId).map((e) => e.content);
    expect(tagged?.[ORIGIN_CONTENT_KEY]).toEqual(origin);
    expect(plain?.[ORIGIN_CONTENT_KEY]).toBeUndefined();
    expect(tagged?.[SENT_CONTENT_KEY]).toEqual({ v: 1 });
    expect(plain?.[SENT_CONTENT_KEY]).toEqual({ v: 1 });
  });

  it("keeps every event under 64 KiB: 30,000 '<' characters become several events the fake accepts", async () => {
    const b = await openBench({ config: { maxTextLength: 60_000 } });
    const { roomId, target } = b.room();
    const text = "<".repeat(30_000);
    const receipt = await b.runtime.send(b.say(target, text));
    const parts = b.fake.rooms.messagesOf(roomId);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    expect(receipt.platformMessageIds).toHaveLength(parts.length);
    for (const p of parts)
      expect(Buffer.byteLength(JSON.stringify(p.content))).toBeLessThan(60_000);
    expect(parts.map((p) => p.content.body).join("")).toBe(text);
  });

  it("refuses to send into a room it knows is encrypted, with a typed error", async () => {
    const b = await openBench();
    const { roomId, target } = b.room();
    // The receiver marks the rooms it sees turn encryption on; the send path checks the mark.
    const encrypted = new EncryptedRooms();
    encrypted.markEncrypted(roomId);
    const guarded = createSend({
      http: new MatrixHttp({ homeserverUrl: b.fake.url, accessToken: b.connection.accessToken }),
      rooms: encrypted,
      maxContentBytes: 60_000,
      accessToken: b.connection.accessToken,
    });
    const unit = {
      index: 0,
      kind: "text" as const,
      required: true,
      payload: {
        type: "text",
        content: {
          msgtype: "m.notice",
          body: "x",
          format: "org.matrix.custom.html",
          formatted_body: "x",
        },
        mentions: [],
      },
    };
    const ctx = {
      channel: "matrix",
      message: b.say(target, "x"),
      attempt: 1,
      idempotencyKey: "k",
      unitIdempotencyKey: "k#0",
      signal: new AbortController().signal,
      log: b.logger,
    };
    await expect(guarded.send(ctx, unit)).rejects.toBeInstanceOf(MatrixEncryptedRoomError);
    expect(b.adapter.send.classifyError(new MatrixEncryptedRoomError(roomId))).toMatchObject({
      kind: "permission",
      evidence: "not_dispatched",
    });
    expect(b.fake.rooms.messagesOf(roomId)).toEqual([]);
  });
});
