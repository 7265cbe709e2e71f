import { describe, expect, it } from "vitest";
import { OutboundLedger } from "./ledger.ts";

describe("outbound ledger", () => {
  it("gives the ids after the highest id known when the send started, skipping ids it created since", () => {
    const ledger = new OutboundLedger();
    ledger.begin("c", "a#0");
    ledger.landed("c", "a#0", 10);
    ledger.begin("c", "lost#0");
    ledger.failed("c", "lost#0", true);
    ledger.begin("c", "b#0");
    ledger.landed("c", "b#0", 12);
    expect(ledger.probeRange("c", "lost#0", 3)).toEqual({ ok: true, ids: [11, 13, 14] });
    expect(ledger.isOwn("c", 12)).toBe(true);
    expect(ledger.isOwn("c", 11)).toBe(false);
  });

  it("refuses without an earlier message in the chat, or for a send it never saw (a restart)", () => {
    const ledger = new OutboundLedger();
    ledger.begin("c", "first#0");
    ledger.failed("c", "first#0", true);
    expect(ledger.probeRange("c", "first#0", 3)).toMatchObject({
      ok: false,
      reason: "no earlier message of this bot in this chat since the process started",
    });
    expect(ledger.probeRange("c", "other#0", 3)).toMatchObject({ ok: false });
  });

  it("refuses while another send to the chat is in flight or unresolved", () => {
    const ledger = new OutboundLedger();
    ledger.begin("c", "a#0");
    ledger.landed("c", "a#0", 10);
    ledger.begin("c", "x#0");
    ledger.failed("c", "x#0", true);
    ledger.begin("c", "y#0");
    expect(ledger.probeRange("c", "x#0", 3)).toMatchObject({
      ok: false,
      reason: "another send to this chat is in flight or unresolved",
    });
    ledger.failed("c", "y#0", false); // provably not sent: no longer in the way
    expect(ledger.probeRange("c", "x#0", 3)).toEqual({ ok: true, ids: [11, 12, 13] });
  });
});
