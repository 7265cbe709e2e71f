/**
 * The replay gate (DESIGN §3 "Replay gate"; issue H14 items 1–3): every replay of a `maybe_sent`
 * unit waits the same backoff and attempt cap as a `not_dispatched` retry, a native key is only
 * trusted inside the platform's window, and reconciliation waits a settle delay before it may
 * conclude `not_sent`. Fake clock throughout.
 */
import { afterEach, describe, expect, it } from "vitest";
import { isHeldForOperator } from "../message/intent.ts";
import type { FakeAdapterOptions } from "../testing/fakeAdapter.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { deliveryHarness, eventually, type Harness } from "./testing/harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

const first = async () => (await h?.store.listIntents({ limit: 10 }))?.[0];
const sends = () => h?.platform.calls.filter((c) => c.op === "send") ?? [];

describe("persistent 5xx for 60 s (replay gate)", () => {
  const backoff = { baseMs: 1_000, maxMs: 300_000, jitter: 0.5, maxAttempts: 6 };
  const cases: Array<{
    name: string;
    adapter: Omit<FakeAdapterOptions, "transport">;
    idempotent: boolean;
    store: boolean;
    duplicatesAllowed: boolean;
  }> = [
    // The keyed platform stores the message and still answers 503: every replay is deduplicated.
    {
      name: "native idempotency key",
      adapter: { idempotent: true },
      idempotent: true,
      store: true,
      duplicatesAllowed: false,
    },
    {
      name: "reconciliation",
      adapter: { reconcile: true },
      idempotent: false,
      store: false,
      duplicatesAllowed: false,
    },
    {
      name: "at_least_once",
      adapter: { unknownSendPolicy: "at_least_once" },
      idempotent: false,
      store: false,
      duplicatesAllowed: true,
    },
  ];

  for (const c of cases) {
    it(`${c.name}: calls ≤ maxAttempts, spaced by backoff, then failed with the reason`, async () => {
      h = await deliveryHarness({
        adapter: c.adapter,
        platform: { idempotent: c.idempotent },
        delivery: { backoff },
      });
      const t0 = h.clock();
      h.platform.outage({ op: "send", untilMs: t0 + 60_000, status: 503, store: c.store });
      await h.runtime.enqueue(outboundMessage("during the outage"));
      const failed = await h.drive(eventually(first, (i) => i?.status === "failed"));

      const calls = sends();
      expect(calls.length).toBeLessThanOrEqual(backoff.maxAttempts);
      expect(calls.length).toBe(backoff.maxAttempts);
      expect(calls.every((call) => call.at < t0 + 60_000)).toBe(true);
      for (let n = 1; n < calls.length; n++) {
        // Backoff floor of attempt n: (1 − jitter) · base · 2^(n−1).
        const floor = (1 - backoff.jitter) * backoff.baseMs * 2 ** (n - 1);
        expect((calls[n]?.at ?? 0) - (calls[n - 1]?.at ?? 0)).toBeGreaterThanOrEqual(floor);
      }
      expect(failed?.attempt).toBe(backoff.maxAttempts);
      expect(failed?.failure?.message).toMatch(/gave up after 6 attempts/);
      expect(failed?.failure?.message).toMatch(/HTTP 503/);
      const visible = h.platform.visible().length;
      if (!c.duplicatesAllowed) expect(visible).toBeLessThanOrEqual(1);
      if (c.store) expect(visible).toBe(1);
    });
  }

  it("a not_dispatched retry keeps the same gate: no faster than backoff, capped", async () => {
    h = await deliveryHarness({ delivery: { backoff } });
    h.platform.outage({ op: "send", untilMs: h.clock() + 60_000, status: 429 });
    await h.runtime.enqueue(outboundMessage("rate limited"));
    await h.drive(eventually(first, (i) => (i?.attempt ?? 0) >= 3));
    const calls = sends();
    for (let n = 1; n < calls.length; n++) {
      expect((calls[n]?.at ?? 0) - (calls[n - 1]?.at ?? 0)).toBeGreaterThanOrEqual(500);
    }
  });
});

describe("idempotency windows", () => {
  /** Sends once (stored, answer lost), then keeps the worker away for `awayMs`. */
  async function lostAnswerThenAway(
    adapter: Omit<FakeAdapterOptions, "transport">,
    awayMs: number,
  ) {
    h = await deliveryHarness({
      adapter: { idempotent: true, idempotencyWindowMs: 60_000, ...adapter },
      platform: { idempotent: true, idempotencyWindowMs: 60_000 },
    });
    h.platform.failNext({ type: "accept-then-drop" });
    const dispatchedAt = h.clock();
    await h.runtime.enqueue(outboundMessage("keyed"));
    await eventually(first, (i) => i?.status === "unknown_after_send");
    const intent = await first();
    expect(intent?.firstDispatchAt).toEqual({ "0": dispatchedAt });
    await h.runtime.stop();
    h.clock.advance(awayMs);
    await h.runtime.start();
  }

  it("replays with the key inside the window: one message", async () => {
    await lostAnswerThenAway({}, 10_000);
    const sent = await h?.drive(eventually(first, (i) => i?.status === "sent"));
    expect(h?.platform.visible().map((m) => m.text)).toEqual(["keyed"]);
    expect(sent?.receipt?.platformMessageIds).toEqual([h?.platform.visible()[0]?.id]);
  });

  it("past the window reconciles instead of trusting the key: found, one message", async () => {
    await lostAnswerThenAway({ reconcile: true }, 10 * 60_000);
    const sent = await h?.drive(eventually(first, (i) => i?.status === "sent"));
    expect(h?.platform.visible().map((m) => m.text)).toEqual(["keyed"]);
    expect(sent?.receipt?.platformMessageIds).toEqual([h?.platform.visible()[0]?.id]);
  });

  it("past the window without a reconciler follows unknownSendPolicy (hold): no replay", async () => {
    await lostAnswerThenAway({}, 10 * 60_000);
    const held = await h?.drive(eventually(first, (i) => i !== undefined && isHeldForOperator(i)));
    expect(held?.status).toBe("unknown_after_send");
    expect(h?.platform.visible().map((m) => m.text)).toEqual(["keyed"]);
    expect(sends()).toHaveLength(1);
  });

  it("an operator's retry of an intent held past the window is sent as asked", async () => {
    await lostAnswerThenAway({}, 10 * 60_000);
    const held = await h?.drive(eventually(first, (i) => i !== undefined && isHeldForOperator(i)));
    // What `herald queue retry <id>` does.
    await h?.store.transitionIntents([
      {
        id: held?.id ?? "",
        from: "unknown_after_send",
        to: "pending",
        patch: { nextAttemptAt: null, lease: "release" },
      },
    ]);
    h?.runtime.worker.kick();
    await h?.drive(eventually(first, (i) => i?.status === "sent"));
    expect(sends()).toHaveLength(2); // the operator accepted a possible second copy
  });

  it("a rate-limited replay that would land past the window is not sent with the stale key", async () => {
    h = await deliveryHarness({
      adapter: { idempotent: true, idempotencyWindowMs: 60_000 },
      platform: { idempotent: true, idempotencyWindowMs: 60_000 },
    });
    h.platform.failNext({ type: "accept-then-drop" });
    h.platform.failNext({ type: "status", status: 429, retryAfterS: 120 });
    await h.runtime.enqueue(outboundMessage("keyed"));
    const held = await h.drive(
      eventually(first, (i) => i !== undefined && isHeldForOperator(i)),
      1_000,
    );
    expect(held?.failure?.message).toMatch(/may have been delivered/);
    expect(h.platform.visible().map((m) => m.text)).toEqual(["keyed"]);
  });
});

describe("reconcile after a timeout (settle delay)", () => {
  it("a send stored late is found by the first lookup: one message, no replay", async () => {
    h = await deliveryHarness({ adapter: { reconcile: true, requestTimeoutMs: 1_000 } });
    h.platform.failNext({ type: "store-late", delayMs: 900 }, 1, "send");
    const t0 = h.clock();
    const receipt = await h.drive(h.runtime.send(outboundMessage("late")), 100);
    expect(h.platform.visible().map((m) => m.text)).toEqual(["late"]);
    expect(receipt.platformMessageIds).toEqual([h.platform.visible()[0]?.id]);
    expect(sends()).toHaveLength(1);
    const lookups = h.platform.calls.filter((c) => c.op === "find");
    expect(lookups[0]?.at).toBeGreaterThanOrEqual(t0 + 1_000);
  });

  it("the settle delay adds the declared visibility lag", async () => {
    h = await deliveryHarness({
      adapter: { reconcile: true, requestTimeoutMs: 1_000, visibilityLagMs: 4_000 },
    });
    h.platform.failNext({ type: "store-late", delayMs: 4_500 }, 1, "send");
    const t0 = h.clock();
    await h.drive(h.runtime.send(outboundMessage("lagging")), 100);
    expect(h.platform.visible().map((m) => m.text)).toEqual(["lagging"]);
    expect(h.platform.calls.find((c) => c.op === "find")?.at).toBeGreaterThanOrEqual(t0 + 5_000);
  });

  it("a best-effort not_sent is not a licence to replay: hold keeps one message", async () => {
    h = await deliveryHarness({
      adapter: { reconcile: "best_effort", requestTimeoutMs: 1_000, unknownSendPolicy: "hold" },
    });
    h.platform.failNext({ type: "store-late", delayMs: 30_000 }, 1, "send");
    await h.runtime.enqueue(outboundMessage("slow platform"));
    const held = await h.drive(eventually(first, (i) => i !== undefined && isHeldForOperator(i)));
    expect(held?.failure?.message).toMatch(/best-effort lookup found nothing/);
    h.clock.advance(60_000);
    expect(h.platform.visible().map((m) => m.text)).toEqual(["slow platform"]);
    expect(sends()).toHaveLength(1);
  });

  it("a complete not_sent after the settle delay replays once", async () => {
    h = await deliveryHarness({ adapter: { reconcile: true, requestTimeoutMs: 1_000 } });
    h.platform.failNext({ type: "refuse" }, 0);
    h.platform.failNext({ type: "status", status: 504 }, 1, "send");
    await h.drive(h.runtime.send(outboundMessage("never stored")), 100);
    expect(h.platform.visible().map((m) => m.text)).toEqual(["never stored"]);
    expect(sends()).toHaveLength(2);
  });
});
