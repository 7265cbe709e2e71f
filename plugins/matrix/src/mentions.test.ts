/**
 * `m.mentions` on edits (PLATFORMS.md §8, C33): the top level of an edit lists only users no
 * earlier version mentioned — also when each edit is given the original send's receipt (as the
 * docs' example does) rather than the previous edit's, and after a restart.
 */
import { describe, expect, it } from "vitest";
import { openBench } from "./testing/bench.ts";

type Content = Record<string, unknown>;
const topMentions = (c: Content) => (c["m.mentions"] as { user_ids?: string[] }).user_ids;

describe("m.mentions of edits", () => {
  it("C33: each edit given the original receipt pings only users not mentioned by any earlier version", async () => {
    const b = await openBench();
    const { roomId, target } = b.room();
    const sent = await b.runtime.send(b.say(target, "hello"));
    await b.runtime.edit(sent, b.say(target, "hello @alice:fake.test"));
    await b.runtime.edit(sent, b.say(target, "hello @alice:fake.test and @bob:fake.test"));
    await b.runtime.edit(sent, b.say(target, "bye @alice:fake.test and @bob:fake.test"));
    const edits = b.fake.rooms.events.filter(
      (e) =>
        e.room_id === roomId &&
        (e.content["m.relates_to"] as { rel_type?: string } | undefined)?.rel_type === "m.replace",
    );
    expect(edits.map((e) => topMentions(e.content))).toEqual([
      ["@alice:fake.test"],
      ["@bob:fake.test"],
      [],
    ]);
    expect(b.fake.visible(roomId).map((m) => m.text)).toEqual([
      "bye @alice:fake.test and @bob:fake.test",
    ]);
  });
});
