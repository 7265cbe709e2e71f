import { describe, expect, it } from "vitest";
import {
  allowedOperations,
  assertTransition,
  canTransition,
  IllegalTransitionError,
  INTENT_STATUSES,
  type IntentStatus,
  orderingKeyOf,
  statusesAllowing,
} from "./intent.ts";
import type { ChannelMessage } from "./message.ts";

// The legal edges of DESIGN §3, written out independently of the implementation's table.
const LEGAL = new Set<string>([
  "pending→sending",
  "pending→failed",
  "pending→cancelled",
  "pending→expired",
  "sending→committing",
  "sending→pending",
  "sending→unknown_after_send",
  "sending→failed",
  "sending→cancelled",
  "committing→sent",
  "unknown_after_send→committing",
  "unknown_after_send→sent",
  "unknown_after_send→pending",
  "unknown_after_send→failed",
  "unknown_after_send→cancelled",
  "failed→pending",
  "failed→cancelled",
  "expired→pending",
]);

describe("intent status machine", () => {
  const pairs = INTENT_STATUSES.flatMap((from) =>
    INTENT_STATUSES.map((to) => [from, to] as [IntentStatus, IntentStatus]),
  );

  it.each(pairs)("%s → %s matches the DESIGN table", (from, to) => {
    const legal = LEGAL.has(`${from}→${to}`);
    expect(canTransition(from, to)).toBe(legal);
    if (legal) {
      expect(() => assertTransition(from, to)).not.toThrow();
    } else {
      const error = (() => {
        try {
          assertTransition(from, to);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(IllegalTransitionError);
      expect(error).toMatchObject({ from, to, code: "HERALD_ILLEGAL_TRANSITION" });
      expect((error as Error).message).toContain(`${from} → ${to}`);
    }
  });

  it("has terminal sent and cancelled states", () => {
    for (const to of INTENT_STATUSES) {
      expect(canTransition("sent", to)).toBe(false);
      expect(canTransition("cancelled", to)).toBe(false);
    }
  });

  it("never lets a sending intent go back to pending without passing the failure path", () => {
    // sending → pending is the only way back, and only for not-dispatched retryable failures;
    // a crash in sending must go through unknown_after_send (recovery), which is legal too.
    expect(canTransition("sending", "unknown_after_send")).toBe(true);
    expect(canTransition("committing", "pending")).toBe(false);
  });
});

describe("operator actions ([H28] C48)", () => {
  it("lets an operator close a failed intent for good, and retry it", () => {
    expect(allowedOperations("failed")).toEqual(["retry", "cancel"]);
  });

  it("offers exactly the legal transitions of an intent no worker holds", () => {
    expect(Object.fromEntries(INTENT_STATUSES.map((s) => [s, allowedOperations(s)]))).toEqual({
      pending: ["cancel"],
      sending: [],
      committing: [],
      unknown_after_send: ["retry", "cancel"],
      sent: [],
      failed: ["retry", "cancel"],
      cancelled: [],
      expired: ["retry"],
    });
    expect(statusesAllowing("retry")).toEqual(["unknown_after_send", "failed", "expired"]);
    expect(statusesAllowing("cancel")).toEqual(["pending", "unknown_after_send", "failed"]);
  });
});

describe("orderingKeyOf", () => {
  const base: ChannelMessage = {
    id: "m",
    channel: "telegram",
    accountId: "bot",
    direction: "outbound",
    target: { kind: "group", id: "-100" },
  };

  it("separates threads of one chat and merges messages to the same thread", () => {
    const topic42 = orderingKeyOf({ ...base, target: { ...base.target, threadId: "42" } });
    const viaRelation = orderingKeyOf({ ...base, relation: { kind: "reply", threadId: "42" } });
    expect(topic42).toBe(viaRelation);
    expect(topic42).not.toBe(orderingKeyOf(base));
  });

  it("cannot be confused by ids containing separators", () => {
    const a = orderingKeyOf({ ...base, accountId: "a:b", target: { kind: "group", id: "c" } });
    const b = orderingKeyOf({ ...base, accountId: "a", target: { kind: "group", id: "b:c" } });
    expect(a).not.toBe(b);
  });
});
