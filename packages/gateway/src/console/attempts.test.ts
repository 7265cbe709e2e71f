/** [H18] review: the attempt timeline shows each attempt once, however often it settled. */
import type { DeliveryEvent, DurableSendIntent } from "@herald/core";
import { describe, expect, it } from "vitest";
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
