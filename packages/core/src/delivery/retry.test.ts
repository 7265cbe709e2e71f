import { afterEach, describe, expect, it } from "vitest";
import { outboundMessage } from "../testing/fixtures.ts";
import { deliveryHarness, eventually, type Harness } from "./testing/harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

const list = () => h?.store.listIntents({ limit: 10_000 }) ?? Promise.resolve([]);

describe("retries and backoff", () => {
  it("C03: backs off with a ceiling, fails after N attempts keeping the reason, while the process keeps running", async () => {
    h = await deliveryHarness({
      delivery: { backoff: { baseMs: 100, maxMs: 400, maxAttempts: 5 } },
    });
    h.platform.failNext({ type: "status", status: 502, code: "bad_gateway" }, 0);
    h.platform.failNext({ type: "refuse" }, 10);
    await h.runtime.enqueue(outboundMessage("keeps failing"));
    const delays: number[] = [];
    for (let attempt = 1; attempt < 5; attempt++) {
      const [i] = await eventually(
        list,
        (l) => l[0]?.status === "pending" && l[0].attempt === attempt,
      );
      delays.push((i?.nextAttemptAt ?? 0) - h.clock());
      h.clock.advance(10_000);
      h.runtime.worker.kick();
    }
    const [failed] = await eventually(list, (l) => l[0]?.status === "failed");
    expect(failed?.attempt).toBe(5);
    expect(failed?.failure?.message).toMatch(/gave up after 5 attempts/);
    expect(failed?.failure?.message).toMatch(/ECONNREFUSED/);
    // Equal jitter with random()=0.5 → 75 % of the ceilinged exponential delay.
    expect(delays).toEqual([75, 150, 300, 300]);
    expect(h.platform.visible()).toEqual([]);
  });

  it("C03: a nextAttemptAt far in the future (clock skew) does not freeze the row", async () => {
    h = await deliveryHarness();
    await h.runtime.stop();
    await h.store.enqueueIntents([
      {
        idempotencyKey: "skewed",
        message: outboundMessage("from the future"),
        nextAttemptAt: h.clock() + 400 * 24 * 3_600_000,
      },
    ]);
    const report = await h.runtime.worker.recover();
    expect(report.skewRepaired).toBe(1);
    await h.runtime.start();
    await eventually(list, (l) => l[0]?.status === "sent");
    expect(h.platform.visible().map((m) => m.text)).toEqual(["from the future"]);
  });

  it("keeps landed parts and resends only the rest when unit 2 fails not-dispatched", async () => {
    h = await deliveryHarness({ adapter: { maxLength: 3 } });
    await h.runtime.stop();
    await h.runtime.enqueue(outboundMessage("aaabbbccc"));
    let calls = 0;
    const original = h.platform.call.bind(h.platform);
    h.platform.call = (c) => {
      calls += 1;
      if (calls === 2) h?.platform.failNext({ type: "refuse" });
      return original(c);
    };
    await h.runtime.start();
    const [retrying] = await eventually(
      list,
      (l) => l[0]?.status === "pending" && l[0].attempt === 1,
    );
    expect(retrying?.partialReceipt?.parts.map((p) => p.index)).toEqual([0]);
    h.clock.advance(10_000);
    h.runtime.worker.kick();
    const [sent] = await eventually(list, (l) => l[0]?.status === "sent");
    expect(h.platform.visible().map((m) => m.text)).toEqual(["aaa", "bbb", "ccc"]);
    expect(sent?.receipt?.platformMessageIds).toEqual(h.platform.visible().map((m) => m.id));
  });
});

describe("rate limits", () => {
  it("C05: a 429 with retry_after on media in topic 42 waits in the durable queue; other chats keep flowing", async () => {
    h = await deliveryHarness({ delivery: { maxInMemoryWaitMs: 1_000 } });
    h.platform.failNext({
      type: "status",
      status: 429,
      code: "Too Many Requests",
      retryAfterS: 17,
    });
    const voice = outboundMessage("", {
      target: { id: "group-1", kind: "group", threadId: "42" },
      attachments: [{ kind: "voice", path: "/tmp/v.ogg" }],
    });
    const t0 = h.clock();
    await h.runtime.enqueue(voice);
    const [waiting] = await eventually(
      list,
      (l) => l[0]?.status === "pending" && l[0].attempt === 1,
    );
    expect(waiting?.nextAttemptAt).toBe(t0 + 17_000);
    expect(waiting?.failure).toMatchObject({ kind: "rate_limit", retryAfterMs: 17_000 });
    // Another chat is not paused.
    await h.runtime.send(outboundMessage("other chat", { target: { id: "chat-b" } }));
    h.clock.advance(16_999);
    h.runtime.worker.kick();
    await new Promise((r) => setTimeout(r, 50));
    expect(h.platform.visible("group-1")).toEqual([]);
    h.clock.advance(1);
    h.runtime.worker.kick();
    await eventually(list, (l) => l.every((i) => i.status === "sent"));
    const inTopic = h.platform.visible("group-1");
    expect(inTopic.map((m) => [m.text, m.thread])).toEqual([["[voice /tmp/v.ogg]", "42"]]);
    expect(h.platform.visible()).toHaveLength(2);
  });

  it("C06: an edit answered 429 Retry-After 3 is not counted as delivered and lands after the wait", async () => {
    h = await deliveryHarness();
    const receipt = await h.runtime.send(outboundMessage("draft"));
    h.platform.failNext(
      { type: "status", status: 429, code: "ratelimited", retryAfterS: 3 },
      1,
      "edit",
    );
    const t0 = h.clock();
    const edit = h.runtime.edit(receipt, outboundMessage("final text"), { waitMs: 5_000 });
    const [, pendingEdit] = await eventually(
      list,
      (l) => l[1]?.status === "pending" && l[1].attempt === 1,
    );
    expect(pendingEdit?.nextAttemptAt).toBe(t0 + 3_000);
    expect(h.platform.visible().map((m) => m.text)).toEqual(["draft"]);
    h.clock.advance(3_000);
    h.runtime.worker.kick();
    await edit;
    expect(h.platform.visible().map((m) => m.text)).toEqual(["final text"]);
  });

  it("never draws a 429 from a platform whose limits the adapter declares", async () => {
    // Manual time, so the platform counts a call at the instant the scheduler let it go: this
    // checks the scheduler's arithmetic, not the machine's load. Every wait goes back to the
    // durable queue (maxInMemoryWaitMs 0) and the test moves the clock.
    const limits = [
      { scope: "global" as const, limit: 20, intervalMs: 50 },
      { scope: "chat" as const, limit: 2, intervalMs: 50 },
    ];
    h = await deliveryHarness({
      platform: { limits },
      adapter: {
        rateLimits: [
          { scope: "account", limit: 20, intervalMs: 50 },
          { scope: "chat", limit: 2, intervalMs: 50 },
        ],
      },
      delivery: { concurrency: 8, maxInMemoryWaitMs: 0 },
    });
    const harness = h;
    for (let i = 0; i < 200; i++) {
      await harness.runtime.enqueue(outboundMessage(`m${i}`, { target: { id: `c${i % 10}` } }));
    }
    for (let step = 0; step < 2_000 && harness.platform.visible().length < 200; step++) {
      await new Promise((r) => setTimeout(r, 1));
      harness.clock.advance(3);
      harness.runtime.worker.kick();
    }
    expect(harness.platform.visible()).toHaveLength(200);
    expect(harness.platform.rateLimited).toBe(0);
  });
});
