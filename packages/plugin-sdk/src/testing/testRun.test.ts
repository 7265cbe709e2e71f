import { describe, expect, it } from "vitest";
import { defineChannelMessageAdapter } from "../channel-message/plugin.ts";
import { openTestRun } from "./testRun.ts";
import { VisibleState } from "./VisibleState.ts";

/** The smallest adapter: posts into a VisibleState; inbound events are `{ id, chat, text }`. */
function memoryAdapter(state: VisibleState, cards = false) {
  return defineChannelMessageAdapter({
    id: "memory",
    capabilities: { text: { maxLength: 1_000 }, cards },
    render: {
      render: (message, ctx) => ({
        idempotencyKey: ctx.idempotencyKey,
        atomicity: "all_or_retry_remaining",
        units: [{ index: 0, kind: "text", payload: message.body?.markdown ?? "", required: true }],
      }),
    },
    send: {
      async send(ctx, unit) {
        const { message } = state.post({
          chat: ctx.message.target.id,
          text: String(unit.payload),
          author: { id: "bot", bot: true },
        });
        return { platformMessageId: message.id, kind: "text", index: unit.index };
      },
      classifyError: (error) => ({
        kind: "unknown",
        evidence: "maybe_sent",
        message: String(error),
      }),
    },
    receive: {
      normalize: (raw) => {
        const e = raw as { id: string; chat: string; text: string };
        return {
          id: `memory:${e.id}`,
          channel: "memory",
          direction: "inbound",
          target: { kind: "direct", id: e.chat },
          sender: { id: "u1" },
          body: { markdown: e.text },
          platformMessageId: e.id,
        };
      },
    },
  });
}

describe("openTestRun", () => {
  it("sends through a real runtime and store, and records inbound work through a sink", async () => {
    const state = new VisibleState();
    const run = await openTestRun({ adapters: [memoryAdapter(state)], accountId: "main" });
    try {
      const message = run.message("memory", { kind: "direct", id: "c1" }, "hello");
      await run.runtime.send(message, { idempotencyKey: "greeting" });
      expect((await run.settled("greeting")).status).toBe("sent");
      expect(state.messages({ chat: "c1" }).map((m) => m.text)).toEqual(["hello"]);

      const sink = run.sink("memory");
      await sink.receive({ id: "7", chat: "c1", text: "hi bot" }).done;
      await sink.receive({ id: "7", chat: "c1", text: "hi bot" }).done; // redelivery
      expect(run.handled.map((h) => h.input.body?.markdown)).toEqual(["hi bot"]);
      expect(run.deliveries).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(run.outcomes.map((o) => o.status)).toEqual(["processed", "duplicate"]);
      expect(run.logLines.length).toBeGreaterThan(0);
    } finally {
      await run.close();
    }
  });

  it("runs teardowns last-registered first, once, then closes the store", async () => {
    const run = await openTestRun({ adapters: [memoryAdapter(new VisibleState())] });
    const order: string[] = [];
    run.onClose(() => order.push("fake platform"));
    run.onClose(async () => {
      order.push("receiver");
    });
    await Promise.all([run.close(), run.close()]);
    expect(order).toEqual(["receiver", "fake platform"]);
    await expect(run.store.getIntentByIdempotencyKey("x")).rejects.toThrow();
  });
});

describe("a card on a channel without cards", () => {
  it("is shown as its fallback text after the body, never dropped", async () => {
    const state = new VisibleState();
    const run = await openTestRun({ adapters: [memoryAdapter(state)] });
    try {
      const message = run.message("memory", { kind: "direct", id: "c1" }, "Build finished.", {
        card: {
          title: "Deploy api@1.4.2",
          fields: [{ label: "env", value: "prod" }],
          actions: [{ kind: "link", label: "Logs", url: "https://ci.example/1" }],
        },
      });
      await run.runtime.send(message, { idempotencyKey: "card" });
      expect((await run.settled("card")).status).toBe("sent");
      expect(state.messages({ chat: "c1" }).map((m) => m.text)).toEqual([
        "Build finished.\n\n**Deploy api@1.4.2**\n\n**env:** prod\n\n[Logs](https://ci.example/1)",
      ]);
    } finally {
      await run.close();
    }
  });

  it("reaches render untouched when the adapter declares cards", async () => {
    const state = new VisibleState();
    const run = await openTestRun({ adapters: [memoryAdapter(state, true)] });
    try {
      const message = run.message("memory", { kind: "direct", id: "c1" }, "body only", {
        card: { title: "native" },
      });
      await run.runtime.send(message, { idempotencyKey: "native" });
      await run.settled("native");
      expect(state.messages({ chat: "c1" }).map((m) => m.text)).toEqual(["body only"]);
    } finally {
      await run.close();
    }
  });
});
