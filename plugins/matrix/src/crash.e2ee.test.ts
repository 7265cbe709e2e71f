/**
 * [H24] · C39 in an encrypted room, with a real process killed by SIGKILL: herald encrypts (the
 * room key shared with Alice's device, the crypto store saved), the homeserver stores the
 * `m.room.encrypted` event, and herald is killed before the receipt was saved; the homeserver
 * then forgets the txnId (a Dendrite restart); herald restarts on the same crypto store. Exactly
 * one event must exist — found by its `unsigned.transaction_id`, which stays outside the
 * ciphertext — and Alice's real client must decrypt it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runNodeChild, SqliteStateStore } from "@herald/plugin-sdk/testing";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { eventRef } from "./send.ts";
import type { CrashChildConfig } from "./testing/crashChild.ts";
import { E2eeUser } from "./testing/e2eeUser.ts";
import { ALICE, FAKE_BOT, FakeHomeserver } from "./testing/FakeHomeserver.ts";
import { connectionOf } from "./testing/harness.ts";

const CHILD = fileURLToPath(new URL("./testing/crashChild.ts", import.meta.url));
const NODE_ARGS = ["--conditions=herald-source"];

let dir: string | undefined;
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const runChild = (config: CrashChildConfig, kill: boolean) =>
  runNodeChild(CHILD, [JSON.stringify(config)], {
    ...(kill ? { failpoints: { "send.after_platform_accept": "kill" } } : {}),
    nodeArgs: NODE_ARGS,
    timeoutMs: 60_000,
  });

describe("[H24] · SIGKILL mid-send in an encrypted room", () => {
  it("C39: killed after the homeserver stored the encrypted event, the txnId forgotten, restarted on the same crypto store → exactly one event, which Alice decrypts", async () => {
    dir ??= mkdtempSync(join(tmpdir(), "herald-matrix-e2ee-crash-"));
    const run = join(dir, `run-${Date.now()}`);
    const fake = await FakeHomeserver.start({ kind: "dendrite" });
    onTestFinished(() => fake.close());
    const room = fake.createRoom({ direct: true, encrypted: true });
    const alice = await E2eeUser.start(fake.url, ALICE, join(run, "alice"));
    onTestFinished(() => alice.close());
    await alice.sync();

    const base: Omit<CrashChildConfig, "phase"> = {
      connection: connectionOf(fake),
      config: {
        homeserver: { kind: "dendrite" },
        encryption: { storePath: join(run, "bot-crypto") },
      },
      storePath: join(run, "state.db"),
      roomId: room.id,
      text: "exactly once, and only Alice can read it",
      key: "c39-e2ee",
    };
    const produce = await runChild({ ...base, phase: "produce" }, true);
    expect(produce.killed, `the child was not killed: ${produce.stderr}`).toBe(true);
    const sent = () =>
      fake.rooms.events.filter((e) => e.room_id === room.id && e.sender === FAKE_BOT.userId);
    const stored = sent().filter((e) => e.type === "m.room.encrypted");
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored[0])).not.toContain("only Alice");
    const keysBefore = fake.keys.devices.get(FAKE_BOT.userId)?.get(FAKE_BOT.deviceId);
    expect(keysBefore, "the bot's device published its keys").toBeDefined();
    fake.restart();

    const drain = await runChild(
      { ...base, connection: connectionOf(fake, { requestTimeoutMs: 1_000 }), phase: "drain" },
      false,
    );
    expect(drain.code, `restart failed: ${drain.stderr}`).toBe(0);

    const after = sent().filter((e) => e.type === "m.room.encrypted");
    expect(after.map((e) => e.event_id)).toEqual([stored[0]?.event_id]);
    expect(fake.keys.devices.get(FAKE_BOT.userId)?.get(FAKE_BOT.deviceId)).toEqual(keysBefore);
    const store = new SqliteStateStore({ path: base.storePath });
    const [intent] = await store.listIntents();
    await store.close();
    expect(intent?.status).toBe("sent");
    expect(intent?.receipt?.platformMessageIds).toEqual([
      eventRef(room.id, stored[0]?.event_id as string),
    ]);

    const seen = await alice.syncUntil((s) =>
      s.some((e) => e.eventId === stored[0]?.event_id && e.type === "m.room.message"),
    );
    const fromBot = seen.filter((e) => e.sender === FAKE_BOT.userId && e.encrypted);
    expect(fromBot.map((e) => e.content.body)).toEqual([base.text]);
  }, 120_000);
});
