/**
 * [H28] C49 on Matrix: room ids come from the homeserver's JSON; a room (joined or invited)
 * keyed "__proto__" (an own key after `JSON.parse`) is kept, never set as a prototype and lost.
 */
import { describe, expect, it } from "vitest";
import { parseSyncAnswer } from "./syncShape.ts";

describe("parseSyncAnswer with hostile room ids (C49)", () => {
  it.each(["__proto__", "constructor", "toString"])("keeps the invite of room %j", (roomId) => {
    const answer = JSON.parse(
      `{"next_batch":"s1","rooms":{"invite":{${JSON.stringify(roomId)}:{"invite_state":{"events":[{"type":"m.room.member","state_key":"@bot:hs","sender":"@alice:hs"}]}}}}}`,
    );
    const parsed = parseSyncAnswer(answer);
    expect(Object.keys(parsed.invites)).toEqual([roomId]);
    expect(Object.entries(parsed.invites)[0]?.[1]).toMatchObject({
      invite_state: { events: [{ sender: "@alice:hs" }] },
    });
  });

  it.each(["__proto__", "constructor"])("keeps the timeline of joined room %j", (roomId) => {
    const answer = JSON.parse(
      `{"next_batch":"s2","rooms":{"join":{${JSON.stringify(roomId)}:{"timeline":{"events":[{"type":"m.room.message","event_id":"$e1","sender":"@alice:hs","content":{"body":"hi"}}]}}}}}`,
    );
    const parsed = parseSyncAnswer(answer);
    expect(parsed.rooms.map((r) => [r.roomId, r.events.length])).toEqual([[roomId, 1]]);
  });
});
