/**
 * The fake homeserver's encryption relay on the wire (every exchange is also checked against
 * the vendored Client-Server API description): one-time keys claimed once then the fallback key,
 * to-device messages idempotent per txnId and deleted once a later `since` acknowledges them,
 * device-list changes shown to users sharing a room.
 */
import { describe, expect, it, onTestFinished } from "vitest";
import { ALICE, FAKE_BOT, FakeHomeserver } from "./FakeHomeserver.ts";
import type { FakeMatrixUser } from "./fakeTypes.ts";

/** A JSON answer read loosely (the spec check validates its shape). */
interface Json {
  [key: string]: Json;
}

async function call(
  fake: FakeHomeserver,
  user: FakeMatrixUser,
  method: string,
  path: string,
  body?: unknown,
) {
  const response = await fetch(`${fake.url}/_matrix/client/v3${path}`, {
    method,
    headers: { authorization: `Bearer ${user.accessToken}`, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

const deviceKeys = (user: FakeMatrixUser) => ({
  user_id: user.userId,
  device_id: user.deviceId,
  algorithms: ["m.olm.v1.curve25519-aes-sha2", "m.megolm.v1.aes-sha2"],
  keys: { [`curve25519:${user.deviceId}`]: "c", [`ed25519:${user.deviceId}`]: "e" },
  signatures: { [user.userId]: { [`ed25519:${user.deviceId}`]: "s" } },
});

describe("fake homeserver · encryption relay", () => {
  it("one-time keys are claimed once, then the fallback key; counts and device-list changes show in /sync", async () => {
    const fake = await FakeHomeserver.start();
    onTestFinished(() => fake.close());
    fake.createRoom({ direct: true, encrypted: true });
    const before = await call(fake, ALICE, "GET", "/sync");
    const upload = await call(fake, FAKE_BOT, "POST", "/keys/upload", {
      device_keys: deviceKeys(FAKE_BOT),
      one_time_keys: { "signed_curve25519:AAAAAQ": { key: "k1", signatures: {} } },
      fallback_keys: { "signed_curve25519:AAAAAg": { key: "f1", fallback: true, signatures: {} } },
    });
    expect(upload.body).toEqual({ one_time_key_counts: { signed_curve25519: 1 } });
    // The same key again is accepted; another key under a known id is refused.
    const same = await call(fake, FAKE_BOT, "POST", "/keys/upload", {
      one_time_keys: { "signed_curve25519:AAAAAQ": { key: "k1", signatures: {} } },
    });
    expect(same.status).toBe(200);
    const clash = await call(fake, FAKE_BOT, "POST", "/keys/upload", {
      one_time_keys: { "signed_curve25519:AAAAAQ": { key: "other", signatures: {} } },
    });
    expect(clash.body?.errcode).toBe("M_INVALID_PARAM");

    const changed = await call(fake, ALICE, "GET", `/sync?since=${before.body?.next_batch}`);
    expect(changed.body?.device_lists?.changed).toEqual([FAKE_BOT.userId]);
    const query = await call(fake, ALICE, "POST", "/keys/query", {
      device_keys: { [FAKE_BOT.userId]: [] },
    });
    expect(query.body?.device_keys?.[FAKE_BOT.userId]?.[FAKE_BOT.deviceId]).toEqual(
      deviceKeys(FAKE_BOT),
    );

    const claim = () =>
      call(fake, ALICE, "POST", "/keys/claim", {
        one_time_keys: { [FAKE_BOT.userId]: { [FAKE_BOT.deviceId]: "signed_curve25519" } },
      });
    const first = await claim();
    expect(first.body?.one_time_keys?.[FAKE_BOT.userId]?.[FAKE_BOT.deviceId]).toEqual({
      "signed_curve25519:AAAAAQ": { key: "k1", signatures: {} },
    });
    const second = await claim();
    expect(
      Object.keys(second.body?.one_time_keys?.[FAKE_BOT.userId]?.[FAKE_BOT.deviceId] ?? {}),
    ).toEqual(["signed_curve25519:AAAAAg"]);
    const bot = await call(fake, FAKE_BOT, "GET", "/sync");
    expect(bot.body?.device_one_time_keys_count).toEqual({ signed_curve25519: 0 });
    expect(bot.body?.device_unused_fallback_key_types).toEqual([]);
  });

  it("to-device messages: one per txnId, delivered until a later since acknowledges them", async () => {
    const fake = await FakeHomeserver.start();
    onTestFinished(() => fake.close());
    await call(fake, FAKE_BOT, "POST", "/keys/upload", { device_keys: deviceKeys(FAKE_BOT) });
    const initial = await call(fake, FAKE_BOT, "GET", "/sync");
    const send = () =>
      call(fake, ALICE, "PUT", "/sendToDevice/m.room.encrypted/txn1", {
        messages: {
          [FAKE_BOT.userId]: { "*": { algorithm: "m.olm.v1.curve25519-aes-sha2", ciphertext: {} } },
        },
      });
    await send();
    await send();
    const first = await call(fake, FAKE_BOT, "GET", `/sync?since=${initial.body?.next_batch}`);
    expect(first.body?.to_device?.events).toEqual([
      {
        type: "m.room.encrypted",
        sender: ALICE.userId,
        content: { algorithm: "m.olm.v1.curve25519-aes-sha2", ciphertext: {} },
      },
    ]);
    // Asked again with the same since (the answer was lost): delivered again.
    const again = await call(fake, FAKE_BOT, "GET", `/sync?since=${initial.body?.next_batch}`);
    expect(again.body?.to_device?.events).toHaveLength(1);
    const acked = await call(fake, FAKE_BOT, "GET", `/sync?since=${first.body?.next_batch}`);
    expect(acked.body?.to_device?.events).toEqual([]);
  });
});
