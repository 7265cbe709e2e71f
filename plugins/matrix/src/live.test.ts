/**
 * Live drafts on Matrix through herald's live lifecycle, over the real client against the fake
 * homeserver: each draft edit is an `m.replace` of the draft with its own txnId; the final
 * lands in place and is the edit shown (C33); when the homeserver keeps showing another edit,
 * the final goes out fresh and the draft is redacted only after that final was accepted.
 */
import { eventually } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { openBench } from "./testing/bench.ts";
import { FAKE_BOT } from "./testing/FakeHomeserver.ts";

type Content = Record<string, unknown>;
const relOf = (c: Content) =>
  c["m.relates_to"] as { rel_type?: string; event_id?: string } | undefined;

describe("live drafts", () => {
  it("C33: a draft updated three times and finalized: every edit replaces the draft with its own txnId; one message shows the final", async () => {
    const b = await openBench();
    const { roomId, target } = b.room();
    const live = await b.runtime.live({ channel: "matrix", target, accountId: "main" });
    for (const text of ["thinking", "thinking harder", "almost there"]) {
      live.update(text);
      await eventually(
        () => b.fake.visible(roomId).map((m) => m.text),
        (texts) => texts.includes(text),
        { what: `the draft to show "${text}"` },
      );
    }
    await live.finalize("**the answer** is 42");
    const shown = b.fake.visible(roomId);
    expect(shown.map((m) => m.text)).toEqual(["the answer is 42"]);
    const draft = shown[0]?.id as string;
    const edits = b.fake.rooms.events.filter((e) => relOf(e.content)?.rel_type === "m.replace");
    expect(edits.length).toBeGreaterThanOrEqual(3);
    for (const e of edits) expect(relOf(e.content)?.event_id).toBe(draft);
    const txnIds = edits.map((e) => e.txn?.txnId);
    expect(new Set(txnIds).size).toBe(edits.length);
    const draftTxn = b.fake.rooms.get(draft)?.txn?.txnId;
    expect(txnIds).not.toContain(draftTxn);
    const last = edits.at(-1)?.content["m.new_content"] as Content;
    expect(last.formatted_body).toBe("<p><strong>the answer</strong> is 42</p>");
    expect(b.fake.rooms.latestEdit(b.fake.rooms.get(draft) as never)?.event_id).toBe(
      edits.at(-1)?.event_id,
    );
  });

  it("the final edit keeps losing the ordering (older origin_server_ts): it is resent, then sent fresh, and the draft is redacted only after the fresh final landed", async () => {
    const b = await openBench();
    const { roomId, target } = b.room();
    const live = await b.runtime.live({ channel: "matrix", target, accountId: "main" });
    live.update("draft text");
    await eventually(
      () => b.fake.visible(roomId).map((m) => m.text),
      (texts) => texts.includes("draft text"),
    );
    live.update("draft text, more");
    await eventually(
      () => b.fake.visible(roomId).map((m) => m.text),
      (texts) => texts.includes("draft text, more"),
    );
    const draft = b.fake.visible(roomId)[0]?.id as string;
    // The final and its 3 resends are stamped before the shown edit: they never win.
    b.fake.rooms.nextTimestamps.push(1_000, 1_000, 1_000, 1_000);
    await live.finalize("the final text");
    await eventually(
      () => b.fake.visible(roomId).map((m) => m.text),
      (texts) => texts.length === 1 && texts[0] === "the final text",
      { what: "only the fresh final visible" },
    );
    const fresh = b.fake.visible(roomId)[0];
    expect(fresh?.id).not.toBe(draft);
    const redaction = b.fake.rooms.events.find((e) => e.type === "m.room.redaction");
    expect(redaction?.redacts).toBe(draft);
    const freshEvent = b.fake.rooms.get(fresh?.id as string);
    expect(redaction?.stream).toBeGreaterThan(freshEvent?.stream ?? Number.POSITIVE_INFINITY);
    const finals = b.fake.rooms.events.filter(
      (e) => (e.content["m.new_content"] as Content | undefined)?.body === "the final text",
    );
    expect(finals).toHaveLength(4);
    expect(finals.every((e) => e.sender === FAKE_BOT.userId)).toBe(true);
  });

  it("cancel redacts the draft", async () => {
    const b = await openBench();
    const { roomId, target } = b.room();
    const live = await b.runtime.live({ channel: "matrix", target, accountId: "main" });
    live.update("a draft that will go");
    await eventually(
      () => b.fake.visible(roomId).length,
      (n) => n === 1,
    );
    await live.cancel();
    await eventually(
      () => b.fake.visible(roomId).length,
      (n) => n === 0,
      { what: "the draft redacted" },
    );
    expect(b.fake.rooms.events.filter((e) => e.type === "m.room.redaction")).toHaveLength(1);
  });
});
