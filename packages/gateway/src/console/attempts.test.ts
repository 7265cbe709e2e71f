/** [H18] review: the attempt timeline shows each attempt once, however often it settled. */
import {
  createMessageRuntime,
  type DeliveryEvent,
  type DurableSendIntent,
  SqliteStateStore,
} from "@herald/core";
import {
  createFakeAdapter,
  FakePlatform,
  inProcessTransport,
  outboundMessage,
} from "@herald/core/testing";
import { describe, expect, it } from "vitest";
import { retryIntents } from "../queue/operations.ts";
import { AttemptLog, timelineOf } from "./attempts.ts";

const intent = (over: Partial<DurableSendIntent>): DurableSendIntent =>
  ({
    id: "i1",
    createdAt: 1_000,
    updatedAt: 5_000,
    attempt: 1,
    status: "unknown_after_send",
    ...over,
  }) as DurableSendIntent;
const settled = (i: DurableSendIntent): DeliveryEvent => ({
  type: "settled",
  intent: i,
  durationMs: 1,
});

describe("attempt timeline", () => {
  it("shows an attempt that settled twice in one status once, with the later detail", () => {
    const log = new AttemptLog();
    const failure = { kind: "transient", evidence: "maybe_sent", message: "reset" } as const;
    log.record(settled(intent({ failure })), 2_000);
    log.record(
      settled(intent({ failure: { ...failure, message: "reset — held for an operator" } })),
      2_001,
    );
    log.record(settled(intent({ attempt: 2, status: "sent" })), 3_000);
    const attempts = timelineOf(intent({ attempt: 2, status: "sent" }), log).filter(
      (e) => e.what === "attempt",
    );
    expect(attempts.map((e) => [e.attempt, e.detail])).toEqual([
      [1, "→ unknown_after_send: reset — held for an operator"],
      [2, "→ sent"],
    ]);
  });
});

describe("attempt numbers after an operator retry ([H28] C48)", () => {
  it("keeps the failed attempt #1 while the retried attempt #2 runs and after it landed", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    const platform = new FakePlatform();
    // The retried attempt's call waits at this gate, so the timeline can be read mid-attempt.
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let calls = 0;
    let reached: () => void = () => {};
    const onWire = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const inProcess = inProcessTransport(platform);
    const runtime = createMessageRuntime({
      store,
      adapters: [
        createFakeAdapter({
          transport: async (call) => {
            calls += 1;
            if (calls === 2) {
              reached();
              await gate;
            }
            return inProcess(call);
          },
        }),
      ],
      delivery: { workerId: "w1", pollIntervalMs: 10 },
    });
    const log = new AttemptLog();
    let at = Date.now();
    runtime.worker.on((event) => {
      at += 1;
      log.record(event, at);
    });
    await runtime.start();
    try {
      // 403: the bot may not post there; the intent fails for good after its first attempt.
      platform.failNext({ type: "status", status: 403 }, 1, "send");
      await expect(
        runtime.send(outboundMessage("hello"), { idempotencyKey: "c48" }),
      ).rejects.toThrow();
      const [failed] = await store.listIntents({ statuses: ["failed"] });
      const id = failed?.id ?? "";
      expect(failed?.attempt).toBe(1);
      expect((await retryIntents(store, [id])).changed).toEqual([id]);
      runtime.worker.kick();
      const numbers = (intent: DurableSendIntent, seen: AttemptLog) =>
        timelineOf(intent, seen)
          .filter((e) => e.attempt !== undefined)
          .map((e) => `${e.what} #${e.attempt}`);
      // Attempt #2 is on the wire: the stored failure is still attempt #1's.
      // (`sending` is written before the platform call.)
      await onWire;
      const inFlight = (await store.getIntent(id)) as DurableSendIntent;
      expect(inFlight.status).toBe("sending");
      expect(inFlight.attempt).toBe(2);
      expect(numbers(inFlight, log)).toEqual(["attempt #1", "failure #1"]);
      // Another process's page (no log of its own) numbers it the same.
      expect(numbers(inFlight, new AttemptLog())).toEqual(["failure #1"]);
      open();
      const sent = await runtime.worker.waitFor(id, 10_000);
      expect(sent?.status).toBe("sent");
      expect(numbers(sent as DurableSendIntent, log)).toEqual(["attempt #1", "attempt #2"]);
    } finally {
      open();
      await runtime.stop();
      await store.close();
    }
  });
});
