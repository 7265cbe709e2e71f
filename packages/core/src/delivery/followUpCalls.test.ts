/**
 * The follow-up calls of an edit take rate-limit tokens like every other platform call: the
 * fresh send after the edited message vanished (`freshSendOnEditNotFound`), and the deletes of
 * the parts a shorter edit no longer needs. Before, both went out right after the edit, into
 * a limit the edit had just used up (a 429 each).
 */
import { afterEach, describe, expect, it } from "vitest";
import { outboundMessage } from "../testing/fixtures.ts";
import { deliveryHarness, type Harness } from "./testing/harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

/** One call per chat every 300 ms, declared by the adapter and enforced by the fake. */
const perChat = { scope: "chat" as const, limit: 1, intervalMs: 300 };

async function limited(maxLength?: number) {
  return deliveryHarness({
    realClock: true,
    platform: { limits: [perChat] },
    adapter: { rateLimits: [perChat], ...(maxLength ? { maxLength } : {}) },
  });
}

describe("calls an edit makes after its own", () => {
  it("a fresh send after the edit's target vanished waits for its token: no 429", async () => {
    h = await limited();
    const original = outboundMessage("first text");
    const receipt = await h.runtime.send(original);
    const shown = h.platform.messages[0];
    if (!shown) throw new Error("nothing sent");
    shown.deleted = true; // a user deleted it
    const edited = await h.runtime.edit(receipt, { ...original, body: { markdown: "second" } });
    expect(h.platform.visible().map((m) => m.text)).toEqual(["second"]);
    expect(edited.platformMessageIds).not.toEqual(receipt.platformMessageIds);
    const calls = h.platform.calls.map((c) => `${c.op} ${c.outcome}`);
    expect(calls).toEqual(["send ok", "edit status 404", "send ok"]);
    const [, edit, fresh] = h.platform.calls;
    expect((fresh?.at ?? 0) - (edit?.at ?? 0)).toBeGreaterThanOrEqual(perChat.intervalMs - 5);
  });

  it("the deletes of parts a shorter edit no longer needs wait for their tokens: no 429", async () => {
    h = await limited(10);
    const original = outboundMessage("aaaaaaaaa bbbbbbbbb ccccccccc");
    const receipt = await h.runtime.send(original);
    expect(h.platform.visible()).toHaveLength(3);
    await h.runtime.edit(receipt, { ...original, body: { markdown: "short" } });
    expect(h.platform.visible().map((m) => m.text)).toEqual(["short"]);
    const calls = h.platform.calls.map((c) => `${c.op} ${c.outcome}`);
    expect(calls.filter((c) => c.includes("429"))).toEqual([]);
    expect(calls.slice(3)).toEqual(["edit ok", "delete ok", "delete ok"]);
  });
});
