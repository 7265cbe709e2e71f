/**
 * Default edit keys are numbered per message (DESIGN §3 "Keys"; issue H14 item 4): an edit back
 * to an earlier text (A → B → A) is a new edit and changes the platform, while a retry of the
 * latest edit (same content) reuses its key and edits nothing twice.
 */
import { afterEach, describe, expect, it } from "vitest";
import { deliveryHarness, type Harness } from "../delivery/testing/harness.ts";
import { outboundMessage } from "../testing/fixtures.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

const edits = () => h?.platform.calls.filter((c) => c.op === "edit").length ?? 0;

describe("edit back to an earlier text", () => {
  it("A → B → A: the message shows A at the end", async () => {
    h = await deliveryHarness();
    const original = outboundMessage("draft");
    const receipt = await h.runtime.send(original);
    const as = (text: string) => ({ ...original, body: { markdown: text } });
    await h.runtime.edit(receipt, as("status: open"));
    await h.runtime.edit(receipt, as("status: closed"));
    await h.runtime.edit(receipt, as("status: open"));
    expect(h.platform.visible().map((m) => m.text)).toEqual(["status: open"]);
    expect(edits()).toBe(3);
    const keys = (await h.store.listIntents()).map((i) => i.idempotencyKey);
    expect(keys.filter((k) => k.startsWith("edit:"))).toEqual([
      "edit:qa:bot-1:chat-1::1:1",
      "edit:qa:bot-1:chat-1::1:2",
      "edit:qa:bot-1:chat-1::1:3",
    ]);
  });

  it("a retry of the latest edit (same content) edits nothing twice, on a keyed platform too", async () => {
    h = await deliveryHarness({ platform: { idempotent: true }, adapter: { idempotent: true } });
    const original = outboundMessage("draft");
    const receipt = await h.runtime.send(original);
    const as = (text: string) => ({ ...original, body: { markdown: text } });
    for (let i = 1; i <= 5; i++) await h.runtime.edit(receipt, as(`v${i}`));
    const first = await h.runtime.edit(receipt, as("v5"));
    const again = await h.runtime.edit(receipt, as("v5"));
    expect(again).toEqual(first);
    expect(edits()).toBe(5);
    expect(h.platform.visible().map((m) => m.text)).toEqual(["v5"]);
    await h.runtime.edit(receipt, as("v1"));
    expect(h.platform.visible().map((m) => m.text)).toEqual(["v1"]);
    expect(edits()).toBe(6);
  });
});
