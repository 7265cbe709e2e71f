import { createMessageRuntime, SqliteStateStore } from "@herald/core";
import {
  createFakeAdapter,
  FakePlatform,
  inProcessTransport,
  newIntent,
  outboundMessage,
} from "@herald/core/testing";
import { describe, expect, it } from "vitest";
import { queueAct, queueList, queueShow } from "./queue.ts";

function sink() {
  const out = { text: "", isTTY: false, write: (s: string) => (out.text += s) };
  return out;
}

describe("herald queue", () => {
  it("lists intents by status with counts, filters by status and channel", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    const [a, b] = await store.enqueueIntents([
      newIntent(outboundMessage("first message")),
      newIntent(outboundMessage("second", { channel: "telegram" })),
    ]);
    await store.transitionIntents([
      {
        id: a?.intent.id ?? "",
        from: "pending",
        to: "failed",
        patch: {
          failure: {
            kind: "auth",
            evidence: "not_dispatched",
            message: "401",
            platformCode: "401",
          },
        },
      },
    ]);
    const out = sink();
    await queueList(store, { status: ["failed"] }, out);
    expect(out.text).toContain("failed: 1");
    expect(out.text).toContain("auth[401]");
    expect(out.text).toContain("first message");
    expect(out.text).not.toContain("second");
    const byChannel = sink();
    await queueList(store, { channel: "telegram" }, byChannel);
    expect(byChannel.text).toContain(b?.intent.id ?? "?");
    await expect(queueList(store, { status: ["nope"] }, sink())).rejects.toThrow(
      /unknown status "nope"/,
    );
    await store.close();
  });

  it("shows a streamed reply as one live session with its final as an edit, not a cancel and a duplicate", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    const platform = new FakePlatform();
    const runtime = createMessageRuntime({
      store,
      adapters: [
        createFakeAdapter({
          transport: inProcessTransport(platform),
          live: { editRate: { limit: 100, intervalMs: 1_000 } },
        }),
      ],
      delivery: { workerId: "w1", pollIntervalMs: 10 },
    });
    await runtime.start();
    const live = await runtime.live(
      { channel: "qa", target: { kind: "group", id: "chat-1" } },
      { idempotencyKey: "reply:1" },
    );
    live.update("Hel");
    await live.idle();
    await live.finalize("Hello world");
    await store.enqueueIntents([newIntent(outboundMessage("plain send"))]);
    await runtime.stop();
    expect(platform.messages.map((m) => m.text)).toEqual(["Hello world"]); // one visible reply
    const out = sink();
    await queueList(store, {}, out);
    const rows = out.text.split("\n").filter((l) => l.startsWith("│"));
    const [session, final, plain] = rows.slice(1).map((l) => l.split("│").map((c) => c.trim()));
    expect(session?.slice(2, 4)).toEqual(["live: finalized", "live"]);
    expect(final?.[1]).toMatch(/^└ /);
    expect(final?.slice(2, 4)).toEqual(["sent", `edit #${platform.messages[0]?.id}`]);
    expect(plain?.slice(2, 4)).toEqual(["pending", "send"]);
    expect(rows.filter((r) => r.includes("cancelled"))).toEqual([]);
    expect(out.text).toMatch(/legend:[\s\S]*edit #id[\s\S]*live: finalized/);
    expect(out.text).toContain(
      "note: 1 of the cancelled intents listed is a finished live session",
    );
    await store.close();
  });

  it("retries failed intents, cancels pending ones, and explains what it skipped", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    const [a, b] = await store.enqueueIntents([newIntent(), newIntent()]);
    const ida = a?.intent.id ?? "";
    const idb = b?.intent.id ?? "";
    await store.transitionIntents([{ id: ida, from: "pending", to: "failed" }]);
    const retried = await queueAct(store, "retry", [ida, idb, "missing"]);
    expect(retried.changed).toEqual([ida]);
    expect(retried.skipped.map((s) => s.reason)).toEqual([
      expect.stringMatching(/status is pending/),
      "no such intent",
    ]);
    expect((await store.getIntent(ida))?.status).toBe("pending");
    const cancelled = await queueAct(store, "cancel", [idb]);
    expect(cancelled.changed).toEqual([idb]);
    expect((await store.getIntent(idb))?.status).toBe("cancelled");
    const out = sink();
    expect(await queueShow(store, idb, (t) => t, out)).toBe(true);
    expect(JSON.parse(out.text)).toMatchObject({ id: idb, status: "cancelled" });
    await store.close();
  });

  it("C55 lists, shows and retries an expired intent (sent late, with no age limit)", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    const [a] = await store.enqueueIntents([
      newIntent(outboundMessage("too late"), { maxAgeMs: 60_000 }),
    ]);
    const id = a?.intent.id ?? "";
    await store.transitionIntents([{ id, from: "pending", to: "expired" }]);
    const out = sink();
    await queueList(store, { status: ["expired"] }, out);
    expect(out.text).toContain("expired: 1");
    expect(out.text).toContain("too late");
    expect(out.text).toContain("older than its maxAgeMs"); // the legend says what it means
    const shown = sink();
    expect(await queueShow(store, id, (t) => t, shown)).toBe(true);
    expect(JSON.parse(shown.text)).toMatchObject({ id, status: "expired" });
    const retried = await queueAct(store, "retry", [id]);
    expect(retried.changed).toEqual([id]);
    const after = await store.getIntent(id);
    expect(after?.status).toBe("pending");
    expect(after?.expiresAt).toBeUndefined();
    await store.close();
  });
});
