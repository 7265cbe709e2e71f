/**
 * `runSendHook` (issue H27): a post-send hook never fails the send and never holds it past its
 * bound.
 */
import { describe, expect, it } from "vitest";
import type { HeraldLogger } from "../logger.ts";
import { receiptFromParts } from "../message/receipt.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { runSendHook } from "./hooks.ts";
import type { ChannelMessageAdapter, MessageSendContext } from "./types.ts";

function context(warnings: Array<{ obj: object; msg?: string }>): MessageSendContext {
  const log: HeraldLogger = {
    debug() {},
    info() {},
    warn: (obj, msg) => warnings.push({ obj, ...(msg ? { msg } : {}) }),
    error() {},
    child: () => log,
  };
  return {
    channel: "qa",
    message: outboundMessage("hi"),
    attempt: 1,
    idempotencyKey: "k",
    unitIdempotencyKey: "k#0",
    signal: new AbortController().signal,
    log,
  };
}

const receipt = receiptFromParts([{ platformMessageId: "m1", kind: "text", index: 0 }]);

function adapterWith(send: Partial<ChannelMessageAdapter["send"]>) {
  return {
    id: "qa",
    send: { send: async () => receipt.parts[0], classifyError: () => ({}), ...send },
  } as unknown as ChannelMessageAdapter;
}

describe("runSendHook (H27)", () => {
  it("H27 runs the hook with the context and receipt and reports it done", async () => {
    const warnings: Array<{ obj: object; msg?: string }> = [];
    const got: unknown[] = [];
    const adapter = adapterWith({
      async afterCommit(ctx, r) {
        got.push(ctx.unitIdempotencyKey, r.platformMessageIds);
      },
    });
    expect(await runSendHook(adapter, "afterCommit", context(warnings), receipt)).toBe(true);
    expect(got).toEqual(["k#0", ["m1"]]);
    expect(warnings).toEqual([]);
  });

  it("H27 absent hook: nothing runs", async () => {
    const ctx = context([]);
    expect(await runSendHook(adapterWith({}), "afterSendSuccess", ctx, receipt)).toBe(false);
  });

  it("H27 a hook that throws (also synchronously) is logged with its hook name, never thrown", async () => {
    const warnings: Array<{ obj: object; msg?: string }> = [];
    const adapter = adapterWith({
      afterSendSuccess: (() => {
        throw new Error("boom");
      }) as never,
    });
    expect(await runSendHook(adapter, "afterSendSuccess", context(warnings), receipt)).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.obj).toMatchObject({ hook: "afterSendSuccess", channel: "qa" });
    expect(warnings[0]?.obj).toMatchObject({ err: { message: "boom" } });
  });

  it("H27 a hook that hangs is given up on after the bound; delivery goes on", async () => {
    const warnings: Array<{ obj: object; msg?: string }> = [];
    const adapter = adapterWith({ afterCommit: () => new Promise<void>(() => {}) });
    expect(await runSendHook(adapter, "afterCommit", context(warnings), receipt, 5)).toBe(false);
    expect(warnings[0]?.obj).toMatchObject({ hook: "afterCommit", timeoutMs: 5 });
  });
});
