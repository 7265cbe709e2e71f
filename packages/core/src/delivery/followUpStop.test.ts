/**
 * The leftover deletes of an edit wait for their tokens as `pending` (1dd345b), after the last
 * part landed — a part `onPart` does not save. A stop or a crash in that wait must not repeat
 * a landed part (the fresh send after the edited message vanished: a duplicate) nor leave the
 * landed edit unrecorded.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { deliveryHarness, eventually, type Harness } from "./testing/harness.ts";

let h: Harness | undefined;
let second: { runtime: MessageRuntime; store: SqliteStateStore } | undefined;
let dir: string | undefined;
afterEach(async () => {
  await second?.runtime.stop(0).catch(() => {});
  await second?.store.close().catch(() => {});
  await h?.runtime.stop(0).catch(() => {});
  await h?.store.close().catch(() => {});
  if (dir) rmSync(dir, { recursive: true, force: true });
  h = undefined;
  second = undefined;
  dir = undefined;
});

/** Two calls per chat per 300 ms (manual clock: nothing refills unless the test moves it). */
const perChat = { scope: "chat" as const, limit: 2, intervalMs: 300 };
const leaseMs = 10_000;

/**
 * A 3-part message whose first part a user deleted, edited to one part: the edit (404) and
 * its fresh send take both tokens, and the first leftover delete waits (the clock stands still).
 */
async function waitingLeftoverDelete() {
  dir = mkdtempSync(join(tmpdir(), "herald-followup-"));
  const path = join(dir, "state.db");
  h = await deliveryHarness({
    path,
    platform: { limits: [perChat] },
    adapter: { rateLimits: [perChat], maxLength: 10 },
    delivery: { leaseMs },
  });
  const original = outboundMessage("aaaaaaaaa bbbbbbbbb ccccccccc");
  const receipt = await h.drive(h.runtime.send(original));
  expect(h.platform.visible()).toHaveLength(3);
  const first = h.platform.messages[0];
  if (!first) throw new Error("nothing sent");
  first.deleted = true;
  h.clock.advance(1_000); // both tokens back
  void h.runtime.edit(receipt, { ...original, body: { markdown: "short" } }).catch(() => {});
  const platform = h.platform;
  await eventually(
    () => platform.calls.map((c) => `${c.op} ${c.outcome}`).slice(3),
    (calls) => calls.join(",") === "edit status 404,send ok",
  );
  const edit = await eventually(
    async () => (await h?.store.listIntents())?.find((i) => i.operation.kind === "edit"),
    (i) => i?.status === "pending",
  );
  if (!edit) throw new Error("no edit intent");
  return { path, platform, clock: h.clock, edit };
}

/** Another process on the same store and platform, driving the shared manual clock. */
async function otherProcess(path: string, w: Awaited<ReturnType<typeof waitingLeftoverDelete>>) {
  const store = new SqliteStateStore({ path, clock: w.clock });
  const runtime = createMessageRuntime({
    store,
    clock: w.clock,
    adapters: [
      createFakeAdapter({
        rateLimits: [perChat],
        maxLength: 10,
        transport: inProcessTransport(w.platform),
      }),
    ],
    delivery: {
      workerId: "other",
      pollIntervalMs: 5,
      leaseMs,
      backoff: { baseMs: 100, maxMs: 1_000 },
    },
  });
  second = { runtime, store };
  await runtime.start();
  return eventually(
    async () => {
      w.clock.advance(1_000);
      runtime.worker.kick();
      return store.getIntent(w.edit.id);
    },
    (i) => i?.status === "sent",
  );
}

describe("an edit's leftover delete waiting for its tokens", () => {
  it("waits with the landed parts saved: a crash then does not send the fresh part again", async () => {
    const w = await waitingLeftoverDelete();
    // The fresh-sent part is on the store before the wait.
    const fresh = w.platform.visible().find((m) => m.text === "short");
    expect(w.edit.partialReceipt?.parts.map((p) => [p.index, p.platformMessageId])).toEqual([
      [0, fresh?.id],
    ]);
    // The process dies in the wait (its lease runs out); another one takes the intent over.
    w.clock.advance(leaseMs + 1);
    await otherProcess(w.path, w);
    expect(w.platform.visible().map((m) => m.text)).toEqual(["short"]);
  });

  it("a stop in the wait records the edit as sent (leftovers left), and nothing is sent again", async () => {
    const w = await waitingLeftoverDelete();
    await h?.runtime.stop(0);
    const stored = await h?.store.getIntent(w.edit.id);
    expect(stored?.status).toBe("sent");
    expect(stored?.receipt?.platformMessageIds).toEqual([
      w.platform.visible().find((m) => m.text === "short")?.id,
    ]);
    await h?.store.close();
    h = undefined;
    await otherProcess(w.path, w);
    expect(w.platform.visible().filter((m) => m.text === "short")).toHaveLength(1);
  });
});
