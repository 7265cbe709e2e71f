/**
 * The send adapter's post-send hooks (seed `message-lifecycle.md`, "Adapter surface":
 * `afterSendSuccess`, `afterCommit`; issue H27): when core calls them, and that a hook that
 * throws neither loses nor repeats the message.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChannelMessageAdapter, MessageSendContext } from "../adapter/types.ts";
import type { HeraldLogger } from "../logger.ts";
import type { MessageReceipt } from "../message/receipt.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { deliveryHarness, eventually, type Harness } from "./testing/harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

type Seen = {
  hook: "afterSendSuccess" | "afterCommit";
  ids: string[];
  /** Platform messages visible when the hook ran. */
  visible: number;
  /** The intent's status and saved parts when the hook ran. */
  status: string | undefined;
  savedParts: number;
  unitKey: string;
};

/** The fake adapter with both hooks, recording what the platform and the store held at each. */
function withHooks(
  seen: Seen[],
  fail: { sendSuccess?: boolean; commit?: boolean } = {},
): (adapter: ChannelMessageAdapter) => ChannelMessageAdapter {
  const record = async (hook: Seen["hook"], ctx: MessageSendContext, receipt: MessageReceipt) => {
    const harness = h as Harness;
    const [intent] = ctx.intentId ? await harness.store.listIntents({ limit: 1 }) : [undefined];
    seen.push({
      hook,
      ids: receipt.platformMessageIds,
      visible: harness.platform.visible().length,
      status: intent?.status,
      savedParts: intent?.partialReceipt?.parts.length ?? 0,
      unitKey: ctx.unitIdempotencyKey,
    });
  };
  return (adapter) => ({
    ...adapter,
    send: {
      ...adapter.send,
      async afterSendSuccess(ctx, receipt) {
        await record("afterSendSuccess", ctx, receipt);
        if (fail.sendSuccess) throw new Error("echo cache unavailable");
      },
      async afterCommit(ctx, receipt) {
        await record("afterCommit", ctx, receipt);
        if (fail.commit) throw new Error("registry unavailable");
      },
    },
  });
}

function capturingLogger(lines: Array<{ level: string; obj: object; msg?: string }>): HeraldLogger {
  const logger: HeraldLogger = {
    debug: (obj, msg) => lines.push({ level: "debug", obj, ...(msg ? { msg } : {}) }),
    info: (obj, msg) => lines.push({ level: "info", obj, ...(msg ? { msg } : {}) }),
    warn: (obj, msg) => lines.push({ level: "warn", obj, ...(msg ? { msg } : {}) }),
    error: (obj, msg) => lines.push({ level: "error", obj, ...(msg ? { msg } : {}) }),
    child: () => logger,
  };
  return logger;
}

describe("send hooks (H27, seed 'Adapter surface')", () => {
  it("H27 afterSendSuccess follows each accepted unit before its part is saved; afterCommit follows the committed receipt", async () => {
    const seen: Seen[] = [];
    h = await deliveryHarness({ adapter: { maxLength: 5 }, wrap: withHooks(seen) });
    const receipt = await h.runtime.send(outboundMessage("hello world!"), {
      idempotencyKey: "reply:hooks",
    });
    const ids = h.platform.visible("chat-1").map((m) => m.id);
    expect(ids).toHaveLength(3);
    expect(seen).toEqual([
      // Unit n is on the platform (n + 1 visible), its part not yet saved (n saved before it).
      {
        hook: "afterSendSuccess",
        ids: [ids[0]],
        visible: 1,
        status: "sending",
        savedParts: 0,
        unitKey: "reply:hooks#0",
      },
      {
        hook: "afterSendSuccess",
        ids: [ids[1]],
        visible: 2,
        status: "sending",
        savedParts: 1,
        unitKey: "reply:hooks#1",
      },
      {
        hook: "afterSendSuccess",
        ids: [ids[2]],
        visible: 3,
        status: "sending",
        savedParts: 2,
        unitKey: "reply:hooks#2",
      },
      // Once, with every part, after the intent is `sent`.
      {
        hook: "afterCommit",
        ids,
        visible: 3,
        status: "sent",
        savedParts: 0,
        unitKey: "reply:hooks",
      },
    ]);
    expect(receipt.platformMessageIds).toEqual(ids);
  });

  it("H27 an afterSendSuccess that throws is logged; the message is sent once and committed", async () => {
    const seen: Seen[] = [];
    const lines: Array<{ level: string; obj: object; msg?: string }> = [];
    h = await deliveryHarness({
      adapter: { maxLength: 5 },
      wrap: withHooks(seen, { sendSuccess: true }),
      logger: capturingLogger(lines),
    });
    const receipt = await h.runtime.send(outboundMessage("hello world!"));
    // Let the worker run a few more rounds: nothing is retried.
    await h.drive(new Promise((r) => setTimeout(r, 50)));
    expect(h.platform.visible("chat-1").map((m) => m.text)).toEqual(["hello", " worl", "d!"]);
    expect(h.platform.calls.filter((c) => c.op === "send")).toHaveLength(3);
    const [intent] = await h.store.listIntents();
    expect(intent).toMatchObject({ status: "sent", attempt: 1, receipt });
    expect(seen.map((s) => s.hook)).toEqual([
      "afterSendSuccess",
      "afterSendSuccess",
      "afterSendSuccess",
      "afterCommit",
    ]);
    const warnings = lines.filter((l) => l.level === "warn" && l.msg?.includes("afterSendSuccess"));
    expect(warnings).toHaveLength(3);
    expect(warnings[0]?.obj).toMatchObject({ hook: "afterSendSuccess", channel: "qa" });
  });

  it("H27 an afterCommit that throws leaves the receipt committed and sends nothing again", async () => {
    const seen: Seen[] = [];
    const lines: Array<{ level: string; obj: object; msg?: string }> = [];
    h = await deliveryHarness({
      wrap: withHooks(seen, { commit: true }),
      logger: capturingLogger(lines),
    });
    const receipt = await h.runtime.send(outboundMessage("once"), { idempotencyKey: "reply:c1" });
    await h.drive(new Promise((r) => setTimeout(r, 50)));
    // The same key answers with the committed receipt, without a platform call.
    const again = await h.runtime.send(outboundMessage("once"), { idempotencyKey: "reply:c1" });
    expect(again).toEqual(receipt);
    expect(h.platform.visible().map((m) => m.text)).toEqual(["once"]);
    const [intent] = await h.store.listIntents();
    expect(intent).toMatchObject({ status: "sent", attempt: 1, receipt });
    expect(seen.filter((s) => s.hook === "afterCommit")).toHaveLength(1);
    expect(lines.some((l) => l.level === "warn" && l.msg?.includes("afterCommit"))).toBe(true);
  });

  it("H27 calls afterSendSuccess for each part of an edit, and afterCommit with the edited receipt", async () => {
    const seen: Seen[] = [];
    h = await deliveryHarness({ wrap: withHooks(seen) });
    const sent = await h.runtime.send(outboundMessage("draft"));
    seen.length = 0;
    const edited = await h.runtime.edit(sent, outboundMessage("final"));
    expect(h.platform.visible().map((m) => m.text)).toEqual(["final"]);
    expect(seen.map((s) => [s.hook, s.ids])).toEqual([
      ["afterSendSuccess", edited.platformMessageIds],
      ["afterCommit", edited.platformMessageIds],
    ]);
    seen.length = 0;
    await h.runtime.delete(edited, outboundMessage("final"));
    expect(seen).toEqual([]); // deletes have no post-send hooks
  });

  it("H27 a durability-disabled send calls afterSendSuccess per unit and afterCommit once at the end", async () => {
    const seen: Seen[] = [];
    h = await deliveryHarness({ adapter: { maxLength: 5 }, wrap: withHooks(seen) });
    const receipt = await h.runtime.send(outboundMessage("hello world!"), {
      durability: "disabled",
    });
    expect(await h.store.listIntents()).toEqual([]);
    expect(seen.map((s) => [s.hook, s.visible])).toEqual([
      ["afterSendSuccess", 1],
      ["afterSendSuccess", 2],
      ["afterSendSuccess", 3],
      ["afterCommit", 3],
    ]);
    expect(seen.at(-1)?.ids).toEqual(receipt.platformMessageIds);
  });

  it("H27 an unknown send that reconcile finds on the platform gets afterCommit once, and is not sent again", async () => {
    const seen: Seen[] = [];
    h = await deliveryHarness({ adapter: { reconcile: true }, wrap: withHooks(seen) });
    // The platform stores the message but the answer is lost: the outcome is unknown.
    h.platform.failNext({ type: "accept-then-drop" });
    await h.runtime.enqueue(outboundMessage("maybe"), { idempotencyKey: "reply:unknown" });
    const [intent] = await h.drive(
      eventually(
        () => h?.store.listIntents() ?? [],
        (l) => l[0]?.status === "sent",
      ),
    );
    expect(h.platform.visible().map((m) => m.text)).toEqual(["maybe"]);
    // No unit was answered in this process, so no afterSendSuccess; the commit has its hook.
    expect(seen.map((s) => [s.hook, s.ids, s.status])).toEqual([
      ["afterCommit", intent?.receipt?.platformMessageIds, "sent"],
    ]);
  });

  it("H27 a hook that hangs is given up on within a quarter of the lease; the message is sent once", async () => {
    const lines: Array<{ level: string; obj: object; msg?: string }> = [];
    h = await deliveryHarness({
      adapter: { maxLength: 5 },
      delivery: { leaseMs: 400 }, // hooks bounded by 100 ms
      logger: capturingLogger(lines),
      wrap: (adapter) => ({
        ...adapter,
        send: { ...adapter.send, afterSendSuccess: () => new Promise<void>(() => {}) },
      }),
    });
    const receipt = await h.runtime.send(outboundMessage("hello world!"));
    expect(h.platform.visible("chat-1").map((m) => m.text)).toEqual(["hello", " worl", "d!"]);
    const [intent] = await h.store.listIntents();
    expect(intent).toMatchObject({ status: "sent", attempt: 1, receipt });
    const late = lines.filter((l) => l.level === "warn" && l.msg?.includes("still running"));
    expect(late.map((l) => l.obj)).toEqual([
      expect.objectContaining({ hook: "afterSendSuccess", timeoutMs: 100 }),
      expect.objectContaining({ hook: "afterSendSuccess", timeoutMs: 100 }),
      expect.objectContaining({ hook: "afterSendSuccess", timeoutMs: 100 }),
    ]);
  });
});
