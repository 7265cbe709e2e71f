/**
 * Which reuse of a key is a retry and which is a conflict, field by field (DESIGN §3 "Keys").
 * Found by mutation testing: with only the send tests, dropping any of channel, account, the
 * edited message's ids, a delete's conversation or a live session's place from the comparison
 * survived (58 % of conflict.ts's mutants killed) — "return the first receipt" for a request that
 * asked for something else.
 */
import { describe, expect, it } from "vitest";
import { IdempotencyConflictError } from "../delivery/errors.ts";
import type { DurableSendIntent, IntentOperation } from "../message/intent.ts";
import type { ChannelMessage } from "../message/message.ts";
import { outboundMessage, textReceipt } from "../testing/fixtures.ts";
import { assertSamePlace, assertSameRequest } from "./conflict.ts";

const message = (
  overrides: { [K in keyof ChannelMessage]?: ChannelMessage[K] | undefined } = {},
): ChannelMessage =>
  ({ ...outboundMessage("hello", { target: { id: "chat-1" } }), ...overrides }) as ChannelMessage;

const intent = (m: ChannelMessage, operation: IntentOperation = { kind: "send" }) =>
  ({ id: "intent-1", idempotencyKey: "key-1", message: m, operation }) as DurableSendIntent;

/** The field an IdempotencyConflictError names, or "same" when the call passes. */
function verdict(check: () => void): string {
  try {
    check();
    return "same";
  } catch (error) {
    expect(error).toBeInstanceOf(IdempotencyConflictError);
    return (error as IdempotencyConflictError).field;
  }
}

const edit = (ids: string[]): IntentOperation => ({ kind: "edit", receipt: textReceipt(ids) });
const del = (ids: string[]): IntentOperation => ({ kind: "delete", receipt: textReceipt(ids) });

describe("a reused key is a retry only when it asks for the same thing", () => {
  const base = message();

  it("the same request (another message id) is a retry", () => {
    expect(
      verdict(() => assertSameRequest(intent(base), { ...base, id: "other" }, { kind: "send" })),
    ).toBe("same");
    expect(verdict(() => assertSameRequest(intent(base, edit(["m1"])), base, edit(["m1"])))).toBe(
      "same",
    );
  });

  it("names the first field that differs", () => {
    const send = { kind: "send" } as const;
    const cases: Array<[string, ChannelMessage, IntentOperation]> = [
      ["operation", base, edit(["m1"])],
      ["channel", message({ channel: "other" }), send],
      ["accountId", message({ accountId: "bot-2" }), send],
      ["accountId", message({ accountId: undefined }), send],
      ["message.target", message({ target: { kind: "group", id: "chat-2" } }), send],
      ["message.relation", message({ relation: { kind: "reply", replyToId: "m0" } }), send],
      ["message.body", message({ body: { markdown: "bye" } }), send],
      [
        "message.attachments",
        message({ attachments: [{ kind: "image", url: "https://example.com/a.png" }] }),
        send,
      ],
    ];
    for (const [field, m, operation] of cases) {
      expect([field, verdict(() => assertSameRequest(intent(base), m, operation))]).toEqual([
        field,
        field,
      ]);
    }
  });

  it("attachments: other ones conflict, none and an empty list are the same", () => {
    const image = (url: string) => ({ kind: "image" as const, url });
    const withA = message({ attachments: [image("https://example.com/a.png")] });
    const withB = message({ attachments: [image("https://example.com/b.png")] });
    const send = { kind: "send" } as const;
    expect(verdict(() => assertSameRequest(intent(withA), withB, send))).toBe(
      "message.attachments",
    );
    expect(verdict(() => assertSameRequest(intent(base), message({ attachments: [] }), send))).toBe(
      "same",
    );
  });

  it("shows at most 80 characters of each side in the error", () => {
    const long = message({ body: { markdown: "x".repeat(500) } });
    const error = (() => {
      try {
        assertSameRequest(intent(base), long, { kind: "send" });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error?.message).toContain("message.body");
    expect(error?.message).not.toContain("x".repeat(100));
  });

  it("an edit or delete of other platform messages is a conflict on its target", () => {
    expect(verdict(() => assertSameRequest(intent(base, edit(["m1"])), base, edit(["m2"])))).toBe(
      "target",
    );
    expect(verdict(() => assertSameRequest(intent(base, del(["m1"])), base, del(["m2"])))).toBe(
      "target",
    );
  });

  it("a delete compares only its conversation and thread, not the content", () => {
    const old = intent(base, del(["m1"]));
    expect(
      verdict(() => assertSameRequest(old, message({ body: { markdown: "x" } }), del(["m1"]))),
    ).toBe("same");
    const elsewhere = message({ target: { kind: "group", id: "chat-2" } });
    expect(verdict(() => assertSameRequest(old, elsewhere, del(["m1"])))).toBe("message.target");
    const threaded = message({ target: { kind: "thread", id: "chat-1", threadId: "t1" } });
    expect(verdict(() => assertSameRequest(old, threaded, del(["m1"])))).toBe("message.target");
  });

  it("a slot key compares the place, not the content", () => {
    const other = message({ body: { markdown: "bye" } });
    expect(verdict(() => assertSameRequest(intent(base), other, { kind: "send" }, "slot"))).toBe(
      "same",
    );
    const moved = message({ target: { kind: "group", id: "chat-2" } });
    expect(verdict(() => assertSameRequest(intent(base), moved, { kind: "send" }, "slot"))).toBe(
      "message.target",
    );
  });
});

describe("a live session reusing a key is for the same place", () => {
  const base = message();

  it("passes with other content, and names channel, account, target or relation", () => {
    expect(verdict(() => assertSamePlace(intent(base), message({ body: { markdown: "x" } })))).toBe(
      "same",
    );
    expect(verdict(() => assertSamePlace(intent(base), message({ channel: "other" })))).toBe(
      "channel",
    );
    expect(verdict(() => assertSamePlace(intent(base), message({ accountId: "bot-2" })))).toBe(
      "accountId",
    );
    expect(verdict(() => assertSamePlace(intent(base), message({ accountId: undefined })))).toBe(
      "accountId",
    );
    expect(
      verdict(() =>
        assertSamePlace(intent(base), message({ target: { kind: "group", id: "chat-2" } })),
      ),
    ).toBe("message.target");
    expect(
      verdict(() =>
        assertSamePlace(intent(base), message({ relation: { kind: "reply", replyToId: "m0" } })),
      ),
    ).toBe("message.relation");
  });
});
