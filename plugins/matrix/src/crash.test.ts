/**
 * C39 · forgotten transaction id, with a real process killed by SIGKILL: herald is killed after
 * the homeserver stored its event and before the receipt was saved; the homeserver then forgets
 * the txnId (a Dendrite restart, or a retention declared longer than the server's); herald
 * restarts. Exactly one event must exist for the intent, committed through the event's
 * `unsigned.transaction_id` — never a second event from a replay the homeserver no longer
 * deduplicates.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runNodeChild, SqliteStateStore } from "@herald/plugin-sdk/testing";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { eventRef } from "./send.ts";
import type { CrashChildConfig } from "./testing/crashChild.ts";
import { FAKE_BOT, FakeHomeserver, type FakeServerKind } from "./testing/FakeHomeserver.ts";
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

describe("C39 · forgotten transaction id (SIGKILL)", () => {
  it.each<{
    name: string;
    kind: FakeServerKind;
    homeserver: Record<string, unknown>;
    forget: (fake: FakeHomeserver) => void;
  }>([
    {
      name: "a Dendrite restarted (txnIds in memory): reconciled by unsigned.transaction_id",
      kind: "dendrite",
      homeserver: { kind: "dendrite" },
      forget: (fake) => fake.restart(),
    },
    {
      name: "a retention declared longer than the server keeps (replay inside herald's window): looked up before the replay",
      kind: "dendrite",
      homeserver: { kind: "other", txnRetentionMs: 82_800_000 },
      forget: (fake) => fake.restart(),
    },
  ])(
    "$name → exactly one event",
    async ({ kind, homeserver, forget }) => {
      dir ??= mkdtempSync(join(tmpdir(), "herald-matrix-crash-"));
      const fake = await FakeHomeserver.start({ kind });
      onTestFinished(() => fake.close());
      const room = fake.createRoom();
      const base: Omit<CrashChildConfig, "phase"> = {
        connection: connectionOf(fake),
        config: { homeserver },
        storePath: join(dir, `c39-${Date.now()}-${Math.random()}.db`),
        roomId: room.id,
        text: "exactly once, whatever the homeserver forgot",
        key: "c39",
      };
      const produce = await runChild({ ...base, phase: "produce" }, true);
      expect(produce.killed, `the child was not killed: ${produce.stderr}`).toBe(true);
      expect(fake.visible(room.id).map((m) => m.text)).toEqual([base.text]);
      const txnId = fake.rooms.messagesOf(room.id)[0]?.txn?.txnId;
      const key = {
        user: FAKE_BOT.userId,
        device: FAKE_BOT.deviceId,
        path: `send/${room.id}/m.room.message/${txnId}`,
      };
      expect(fake.rooms.knownTransaction(key)).toBe(true);
      forget(fake);
      expect(fake.rooms.knownTransaction(key), "the homeserver forgot the txnId").toBe(false);

      // The restart waits a settle delay of requestTimeoutMs before its lookup: keep it short.
      const drain = await runChild(
        { ...base, connection: connectionOf(fake, { requestTimeoutMs: 1_000 }), phase: "drain" },
        false,
      );
      expect(drain.code, `restart failed: ${drain.stderr}`).toBe(0);

      const shown = fake.visible(room.id);
      expect(shown.map((m) => m.text)).toEqual([base.text]);
      const store = new SqliteStateStore({ path: base.storePath });
      const [intent] = await store.listIntents();
      await store.close();
      expect(intent?.status).toBe("sent");
      expect(intent?.receipt?.platformMessageIds).toEqual([
        eventRef(room.id, shown[0]?.id as string),
      ]);
    },
    120_000,
  );
});
