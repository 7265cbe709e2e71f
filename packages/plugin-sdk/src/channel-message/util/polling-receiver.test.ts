import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createWatermarkTracker,
  type ReceiveAckSignal,
  SqliteStateStore,
  silentLogger,
} from "@herald/core";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../testing/eventually.ts";
import { ChannelAccountError } from "../account.ts";
import type { ChannelReceiverSink } from "../plugin.ts";
import { createHttpClient } from "./http-client.ts";
import { platformErrors } from "./platform-errors.ts";
import { pollingReceiver } from "./polling-receiver.ts";

type Update = { id: number; text: string };
type Poll = { after: string | null; wait: string | null };
const teardown: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const t of teardown.splice(0).reverse()) await t();
});

/**
 * A polling platform on 127.0.0.1 that behaves as Telegram's `getUpdates` does
 * (https://core.telegram.org/bots/api#getupdates): a poll with `after=N` confirms — forgets —
 * every update ≤ N and answers every remaining one at once, again and again until confirmed.
 */
async function platform(answer?: (poll: Poll) => { status: number; body: unknown } | undefined) {
  let queue: Update[] = [];
  const polls: Poll[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const poll = { after: url.searchParams.get("after"), wait: url.searchParams.get("wait") };
    polls.push(poll);
    const scripted = answer?.(poll);
    if (poll.after !== null) queue = queue.filter((u) => u.id > Number(poll.after));
    res.writeHead(scripted?.status ?? 200, { "content-type": "application/json" });
    res.end(JSON.stringify(scripted?.body ?? { updates: queue }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  teardown.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    polls,
    post: (u: Update) => queue.push(u),
    queued: () => queue.map((u) => u.id),
  };
}

/** A sink whose acks the test settles; watermarks in a real (in-memory SQLite) store. */
function sink(store = new SqliteStateStore({ path: ":memory:" })) {
  const received: Update[] = [];
  const acks: Array<(ack: ReceiveAckSignal) => void> = [];
  const value: ChannelReceiverSink = {
    receive(raw) {
      received.push(raw as Update);
      const ack = new Promise<ReceiveAckSignal>((resolve) => acks.push(resolve));
      return { ack, done: ack.then(() => ({ kind: "handled" }) as never) };
    },
    watermark: (source) =>
      createWatermarkTracker({ store, key: { channel: "acme", ...(source ? { source } : {}) } }),
    cursor: () => {
      throw new Error("unused");
    },
    logger: silentLogger,
  };
  return { value, received, acks, store };
}

/** A fake clock: every wait returns at once and moves the clock by its length. */
function fakeTime() {
  let now = 0;
  const waits: number[] = [];
  return {
    clock: () => now,
    waits,
    sleep: async (ms: number) => {
      waits.push(ms);
      now += ms;
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
  };
}

const { ApiError, NetworkError } = platformErrors("Acme", {
  code: "HERALD_ACME",
  platform: "the Acme API",
});

function receiver(url: string, s: ReturnType<typeof sink>, time = fakeTime(), extra = {}) {
  const call = createHttpClient({
    baseUrl: url,
    errors: { ApiError, NetworkError },
    readError: (b) => ({ retryAfterMs: (b as { retry_after_ms?: number }).retry_after_ms }),
  });
  const r = pollingReceiver<Update>({
    sink: s.value,
    poll: ({ after, longPoll, signal }) =>
      call<{ updates: Update[] }>("GET /v1/updates", {
        query: { after: after?.toString(), wait: longPoll ? 25 : 0 },
        signal,
      }).then((a) => a.updates),
    idOf: (u) => u.id,
    clock: time.clock,
    sleep: time.sleep,
    ...extra,
  });
  teardown.push(() => r.stop?.());
  return r;
}

describe("pollingReceiver", () => {
  it("hands an update over once while its handler runs, and confirms it only once recorded", async () => {
    const p = await platform();
    const s = sink();
    p.post({ id: 7, text: "hello" });
    const r = receiver(p.url, s);
    await r.start?.();
    // The platform hands update 7 over on every poll until it is confirmed…
    await eventually(
      () => p.polls.length,
      (n) => n >= 6,
    );
    // …but the sink got it once, and nothing confirmed it (no `after` past it), asked without
    // holding the long poll.
    expect(s.received.map((u) => u.id)).toEqual([7]);
    expect(p.queued()).toEqual([7]);
    expect(p.polls.slice(1).every((q) => q.after === null && q.wait === "0")).toBe(true);
    s.acks[0]?.({ kind: "accept" }); // durably recorded
    await eventually(
      () => p.polls.at(-1),
      (q) => q?.after === "7",
    );
    expect(p.queued()).toEqual([]);
    expect(s.received.map((u) => u.id)).toEqual([7]);
  });

  it("after a restart, resumes at the first update that was not durable (none lost)", async () => {
    const p = await platform();
    const s = sink();
    p.post({ id: 1, text: "a" });
    p.post({ id: 2, text: "b" });
    const first = receiver(p.url, s);
    await first.start?.();
    await eventually(
      () => s.received.length,
      (n) => n === 2,
    );
    s.acks[0]?.({ kind: "accept" }); // 1 recorded; 2 still in flight when the process dies
    await eventually(
      () => p.queued(),
      (q) => q.length === 1,
    );
    await first.stop?.();
    const again = sink(s.store);
    await receiver(p.url, again).start?.();
    await eventually(
      () => again.received.map((u) => u.id),
      (ids) => ids.length > 0,
    );
    expect(again.received.map((u) => u.id)).toEqual([2]);
    expect(p.polls.at(-1)?.after).toBe("1");
  });

  it("leaves at least emptyPollGapMs between the starts of empty polls (no hot loop)", async () => {
    const p = await platform(); // answers [] at once, as a proxy or an emulator may
    const time = fakeTime();
    await receiver(p.url, sink(), time, { emptyPollGapMs: 1_000 }).start?.();
    await eventually(
      () => p.polls.length,
      (n) => n >= 5,
    );
    expect(time.waits.slice(0, 4)).toEqual([1_000, 1_000, 1_000, 1_000]);
  });

  it("backs off on failures, doubling, and waits a 429's retry-after when longer", async () => {
    let n = 0;
    const p = await platform(() => {
      n += 1;
      if (n <= 3) return { status: 500, body: {} };
      if (n === 4) return { status: 429, body: { retry_after_ms: 9_000 } };
      return undefined;
    });
    const time = fakeTime();
    const r = receiver(p.url, sink(), time, { retryDelayMs: 100, emptyPollGapMs: 1 });
    await r.start?.();
    await eventually(
      () => r.health?.().state,
      (state) => state === "up",
    );
    expect(time.waits.slice(0, 4)).toEqual([100, 200, 400, 9_000]);
  });

  it("stops with the fix when the credentials are rejected", async () => {
    const s = sink();
    const r = pollingReceiver<Update>({
      sink: s.value,
      poll: async () => {
        throw new ChannelAccountError("acme", "main", "token rejected (401)", "check ACME_TOKEN");
      },
      idOf: (u) => u.id,
    });
    await r.start?.();
    await eventually(
      () => r.health?.(),
      (h) => h?.state === "down" && /check ACME_TOKEN/.test(h.detail ?? ""),
    );
    await r.stop?.();
    expect(r.health?.().detail).toMatch(/token rejected/);
  });
});
