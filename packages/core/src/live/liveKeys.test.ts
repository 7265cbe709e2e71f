/**
 * Live keys (DESIGN §3 "Keys"; issue H14 item 4): the default key of a live session is
 * `live:<channel>:<account>:<id>`, so two accounts answering the same message id each deliver
 * their final; a live key reused for another conversation throws `IdempotencyConflictError`
 * instead of handing back someone else's receipt.
 */
import { afterEach, describe, expect, it } from "vitest";
import { IdempotencyConflictError } from "../delivery/errors.ts";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { manualTime } from "./testing/manualTime.ts";

let runtime: MessageRuntime | undefined;
let store: SqliteStateStore | undefined;
afterEach(async () => {
  await runtime?.stop(1_000).catch(() => {});
  await store?.close().catch(() => {});
});

async function twoAccounts() {
  const time = manualTime();
  const pa = new FakePlatform({ clock: time.now });
  const pb = new FakePlatform({ clock: time.now });
  store = new SqliteStateStore({ path: ":memory:", clock: time.now });
  runtime = createMessageRuntime({
    store,
    adapters: [
      {
        adapter: createFakeAdapter({ live: {}, transport: inProcessTransport(pa) }),
        accountId: "A",
      },
      {
        adapter: createFakeAdapter({ live: {}, transport: inProcessTransport(pb) }),
        accountId: "B",
      },
    ],
    clock: time.now,
    random: () => 0.5,
    delivery: { pollIntervalMs: 5, leaseMs: 10_000, backoff: { baseMs: 100, maxMs: 1_000 } },
    live: { timers: time.timers, recoveryIntervalMs: 0 },
  });
  await runtime.start();
  const drive = async <T>(p: Promise<T>) => {
    let done = false;
    const w = p.finally(() => {
      done = true;
    });
    w.catch(() => {});
    for (let t = 0; !done && t < 20_000; t += 100) {
      await new Promise((r) => setTimeout(r, 2));
      if (done) break;
      await time.advance(100);
      runtime?.worker.kick();
    }
    return w;
  };
  return { pa, pb, drive, rt: runtime };
}

describe("live default keys", () => {
  it("two accounts, same message id (default key): each account's final is delivered", async () => {
    const { pa, pb, drive, rt } = await twoAccounts();
    const target = { kind: "direct" as const, id: "dm-1" };
    const a = await rt.live({ channel: "qa", accountId: "A", target, id: "reply-1" });
    await drive(a.finalize("from A"));
    const b = await rt.live({ channel: "qa", accountId: "B", target, id: "reply-1" });
    await drive(b.finalize("from B"));
    expect(pa.visible("dm-1").map((m) => m.text)).toEqual(["from A"]);
    expect(pb.visible("dm-1").map((m) => m.text)).toEqual(["from B"]);
  });

  it("same explicit live key reused for another chat: conflict, not someone else's receipt", async () => {
    const { pa, drive, rt } = await twoAccounts();
    const a = await rt.live(
      { channel: "qa", accountId: "A", target: { kind: "direct", id: "dm-1" } },
      { idempotencyKey: "reply:1" },
    );
    await drive(a.finalize("to dm-1"));
    let threw: unknown;
    try {
      const b = await rt.live(
        { channel: "qa", accountId: "A", target: { kind: "direct", id: "dm-2" } },
        { idempotencyKey: "reply:1" },
      );
      await drive(b.finalize("to dm-2"));
    } catch (e) {
      threw = e;
    }
    const delivered = pa.visible("dm-2").map((m) => m.text);
    // Either delivered to dm-2 or a typed conflict; never a silent no-op.
    expect(delivered.length === 1 || (threw as Error)?.name === "IdempotencyConflictError").toBe(
      true,
    );
    expect(threw).toBeInstanceOf(IdempotencyConflictError);
    expect(pa.visible("dm-1").map((m) => m.text)).toEqual(["to dm-1"]);
  });

  it("a live key whose earlier run ended without a final, reused for another chat: conflict", async () => {
    const { pa, drive, rt } = await twoAccounts();
    const a = await rt.live(
      { channel: "qa", accountId: "A", target: { kind: "direct", id: "dm-1" } },
      { idempotencyKey: "reply:2" },
    );
    await drive(a.cancel("aborted"));
    const error = await rt
      .live(
        { channel: "qa", accountId: "A", target: { kind: "direct", id: "dm-2" } },
        { idempotencyKey: "reply:2" },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IdempotencyConflictError);
    expect(pa.visible("dm-2")).toEqual([]);
  });
});
