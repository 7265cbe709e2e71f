/**
 * [H23] DMs on Matrix: opening the DM with a user creates one room (`createRoom` with
 * `is_direct` and the invite) and records it in the bot's `m.direct` account data; a second
 * open, two opens at once, and an open after a restart (a new adapter on the same homeserver)
 * all return that room. Real matrix-js-sdk against the fake homeserver.
 */
import { DirectMessageUnavailableError } from "@herald/plugin-sdk/channel-message";
import { describe, expect, it } from "vitest";
import { openBench } from "./testing/bench.ts";
import { ALICE, FAKE_BOT } from "./testing/FakeHomeserver.ts";

const request = { channel: "matrix", accountId: "main", userId: ALICE.userId };

describe("H23 · Matrix DMs", () => {
  it("H23 dm: open creates one is_direct room inviting the user, in m.direct; again (twice at once) and after a restart → the same room", async () => {
    const b = await openBench({ closeFake: false });
    const roomsBefore = b.fake.rooms.rooms.size;
    const [first, concurrent] = await Promise.all([
      b.runtime.openDirect(request),
      b.runtime.openDirect(request),
    ]);
    expect(first.kind).toBe("direct");
    expect(concurrent).toEqual(first);
    expect(b.fake.rooms.rooms.size).toBe(roomsBefore + 1);
    const room = b.fake.rooms.rooms.get(first.id);
    expect(room?.direct).toBe(true);
    expect([...(room?.invited.keys() ?? [])]).toContain(ALICE.userId);
    expect(b.fake.accountData.get(`${FAKE_BOT.userId}\u0000m.direct`)).toEqual({
      [ALICE.userId]: [first.id],
    });
    expect(await b.runtime.openDirect(request)).toEqual(first);
    await b.close();

    // A restart: a new adapter and runtime on the same homeserver find the room in m.direct.
    const again = await openBench({ on: b.fake, closeFake: true });
    expect(await again.runtime.openDirect(request)).toEqual(first);
    expect(again.fake.rooms.rooms.size).toBe(roomsBefore + 1);
    // The DM works: a message to it lands in that room.
    await again.runtime.send(again.say(first, "hello Alice"));
    expect(
      again.fake.rooms.events.some(
        (e) =>
          e.room_id === first.id && e.type === "m.room.message" && e.content.body === "hello Alice",
      ),
    ).toBe(true);
  });

  it("H23 dm: a user id that is not @user:server is DirectMessageUnavailableError, nothing created", async () => {
    const b = await openBench();
    const before = b.fake.rooms.rooms.size;
    await expect(
      b.runtime.openDirect({ channel: "matrix", accountId: "main", userId: "alice" }),
    ).rejects.toBeInstanceOf(DirectMessageUnavailableError);
    expect(b.fake.rooms.rooms.size).toBe(before);
  });
});
