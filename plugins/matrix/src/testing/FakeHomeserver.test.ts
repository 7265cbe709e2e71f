/**
 * The fake homeserver's transaction-id semantics, as Synapse has them (PLATFORMS.md §8): per
 * user **and device** and path, kept 24 h, errors never cached; the other server kinds'
 * retention (Dendrite 30–60 min in memory, Conduit forever); `unsigned.transaction_id` only for
 * the sending device; Synapse's filtering after a `/messages` page (C38); the event limit.
 */
import { describe, expect, it, onTestFinished } from "vitest";
import { FAKE_BOT, FakeHomeserver, type FakeMatrixUser } from "./FakeHomeserver.ts";

async function start(options: ConstructorParameters<typeof FakeHomeserver>[0] = {}) {
  const fake = await FakeHomeserver.start(options);
  onTestFinished(() => fake.close());
  return fake;
}

function put(
  fake: FakeHomeserver,
  user: FakeMatrixUser,
  room: string,
  txnId: string,
  body: unknown,
) {
  return fetch(
    `${fake.url}/_matrix/client/v3/rooms/${encodeURIComponent(room)}/send/m.room.message/${txnId}`,
    {
      method: "PUT",
      headers: { authorization: `Bearer ${user.accessToken}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    },
  );
}

const OTHER_DEVICE: FakeMatrixUser = {
  ...FAKE_BOT,
  accessToken: "syt_otherDevice_0000000000",
  deviceId: "LAPTOP",
};

describe("FakeHomeserver transaction ids", () => {
  it("the same txnId from the same device returns the first event, whatever the body; another device makes a new event", async () => {
    const fake = await start({ users: [OTHER_DEVICE] });
    const room = fake.createRoom();
    const first = (await (
      await put(fake, FAKE_BOT, room.id, "txnA", { msgtype: "m.text", body: "one" })
    ).json()) as { event_id: string };
    const again = (await (
      await put(fake, FAKE_BOT, room.id, "txnA", { msgtype: "m.text", body: "two" })
    ).json()) as { event_id: string };
    expect(again.event_id).toBe(first.event_id);
    const other = (await (
      await put(fake, OTHER_DEVICE, room.id, "txnA", { msgtype: "m.text", body: "three" })
    ).json()) as { event_id: string };
    expect(other.event_id).not.toBe(first.event_id);
    expect(fake.visible(room.id).map((m) => m.text)).toEqual(["one", "three"]);
  });

  it("keeps a txnId 24 h: a retry after 23 h is deduplicated, one after 25 h makes a new event", async () => {
    let now = 1_800_000_000_000;
    const fake = await start({ clock: () => now });
    const room = fake.createRoom();
    const body = { msgtype: "m.text", body: "x" };
    const first = (await (await put(fake, FAKE_BOT, room.id, "t", body)).json()) as {
      event_id: string;
    };
    now += 23 * 3_600_000;
    const within = (await (await put(fake, FAKE_BOT, room.id, "t", body)).json()) as {
      event_id: string;
    };
    now += 2 * 3_600_000;
    const after = (await (await put(fake, FAKE_BOT, room.id, "t", body)).json()) as {
      event_id: string;
    };
    expect(within.event_id).toBe(first.event_id);
    expect(after.event_id).not.toBe(first.event_id);
  });

  it("does not cache errors: a 429 then a retry with the same txnId stores one event", async () => {
    const fake = await start();
    const room = fake.createRoom();
    fake.failNext({ kind: "rate_limit", retryAfterMs: 1_120, via: "body" }, { op: "send" });
    const limited = await put(fake, FAKE_BOT, room.id, "t429", { msgtype: "m.text", body: "x" });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({
      errcode: "M_LIMIT_EXCEEDED",
      error: "Too Many Requests: retry after 1120 ms",
      retry_after_ms: 1_120,
    });
    expect(
      (await put(fake, FAKE_BOT, room.id, "t429", { msgtype: "m.text", body: "x" })).status,
    ).toBe(200);
    expect(fake.visible(room.id)).toHaveLength(1);
  });

  it("refuses events over 64 KiB with M_TOO_LARGE and members-only rooms with M_FORBIDDEN", async () => {
    const fake = await start();
    const room = fake.createRoom();
    const big = await put(fake, FAKE_BOT, room.id, "big", {
      msgtype: "m.text",
      body: "x".repeat(70_000),
    });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { errcode: string }).errcode).toBe("M_TOO_LARGE");
    const closed = fake.createRoom({ members: ["@alice:fake.test"] });
    const denied = await put(fake, FAKE_BOT, closed.id, "no", { msgtype: "m.text", body: "x" });
    expect(denied.status).toBe(403);
  });
});

const sent = async (fake: FakeHomeserver, room: string, txnId: string) =>
  (
    (await (await put(fake, FAKE_BOT, room, txnId, { msgtype: "m.text", body: txnId })).json()) as {
      event_id: string;
    }
  ).event_id;

describe("FakeHomeserver server kinds (txnId retention)", () => {
  it("Synapse keeps txnIds across a restart (its database); Dendrite loses them (memory)", async () => {
    for (const [kind, kept] of [
      ["synapse", true],
      ["dendrite", false],
      ["conduit", true],
    ] as const) {
      const fake = await start({ kind });
      const room = fake.createRoom();
      const first = await sent(fake, room.id, "r");
      fake.restart();
      expect((await sent(fake, room.id, "r")) === first, kind).toBe(kept);
    }
  });

  it("Dendrite keeps a txnId between 30 and 60 min (two maps cycled every 30 min)", async () => {
    let now = 1_800_000_000_000;
    const fake = await start({ kind: "dendrite", clock: () => now });
    const room = fake.createRoom();
    const early = await sent(fake, room.id, "early"); // right after a cycle: lives ~60 min
    now += 29 * 60_000;
    const late = await sent(fake, room.id, "late"); // just before a cycle: lives ~31 min
    now += 2 * 60_000; // 31 min: one cycle passed
    expect(await sent(fake, room.id, "early")).toBe(early);
    expect(await sent(fake, room.id, "late")).toBe(late);
    now += 30 * 60_000; // 61 min: two cycles passed for both
    expect(await sent(fake, room.id, "early")).not.toBe(early);
    expect(await sent(fake, room.id, "late")).not.toBe(late);
  });
});

describe("FakeHomeserver own events and filtering", () => {
  const messages = async (fake: FakeHomeserver, user: FakeMatrixUser, room: string, q = "") =>
    (await (
      await fetch(
        `${fake.url}/_matrix/client/v3/rooms/${encodeURIComponent(room)}/messages?dir=b${q}`,
        { headers: { authorization: `Bearer ${user.accessToken}` } },
      )
    ).json()) as { chunk: Array<Record<string, unknown>>; end?: string };

  it("unsigned.transaction_id only for the device that sent the event (spec 'Transaction identifiers')", async () => {
    const fake = await start({ users: [OTHER_DEVICE] });
    const room = fake.createRoom();
    await sent(fake, room.id, "mine");
    const unsignedOf = async (user: FakeMatrixUser) =>
      (await messages(fake, user, room.id, "&limit=1")).chunk[0]?.unsigned as
        | Record<string, unknown>
        | undefined;
    expect((await unsignedOf(FAKE_BOT))?.transaction_id).toBe("mine");
    expect((await unsignedOf(OTHER_DEVICE))?.transaction_id).toBeUndefined();
  });

  it("a /messages page of ignored users' events is chunk: [] with an end (Synapse filters after paging)", async () => {
    const fake = await start();
    const room = fake.createRoom();
    fake.post({ room: room.id, sender: "@alice:fake.test", body: "older" });
    for (let i = 0; i < 3; i++)
      fake.post({ room: room.id, sender: "@otherbot:fake.test", body: `h${i}` });
    fake.ignoreUser(FAKE_BOT.userId, "@otherbot:fake.test");
    const first = await messages(fake, FAKE_BOT, room.id, "&limit=3");
    expect(first.chunk).toEqual([]);
    expect(typeof first.end).toBe("string");
    const next = await messages(fake, FAKE_BOT, room.id, `&limit=3&from=${first.end}`);
    expect(next.chunk.map((e) => (e.content as { body?: string }).body)).toContain("older");
  });
});
