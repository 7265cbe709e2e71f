/**
 * Reconciliation after a client timeout (issue H14 item 3): the QA platform stores a post that
 * was held past the client's request timeout. herald's first lookup waits the settle delay (the
 * declared `requestTimeoutMs`), finds the late message and never posts a second copy.
 */
import {
  createMessageRuntime,
  eventually,
  type MessageRuntime,
  SqliteStateStore,
} from "@herald/plugin-sdk/testing";
import { afterEach, describe, expect, it } from "vitest";
import { qaConfigSchema } from "./config.ts";
import { createQaAdapter } from "./index.ts";
import { DEFAULT_QA_BOT, QaPlatform } from "./testing/platform/QaPlatform.ts";

let platform: QaPlatform | undefined;
let runtime: MessageRuntime | undefined;
let store: SqliteStateStore | undefined;
afterEach(async () => {
  await runtime?.stop(1_000);
  await store?.close();
  await platform?.close();
});

describe("qa-channel reconcile mode: a send stored after the client timed out", () => {
  it("is found by the first lookup after the settle delay: one message, no second post", async () => {
    // Margins wide enough for a loaded CI machine: the post is stored 200 ms after the client
    // gave up and 800 ms before herald's first lookup.
    const requestTimeoutMs = 1_000;
    platform = await QaPlatform.start({ idempotency: false });
    platform.createChat({ id: "c1", type: "group" });
    const config = qaConfigSchema.parse({
      baseUrl: platform.url,
      delivery: "reconcile",
      requestTimeoutMs,
    });
    store = new SqliteStateStore({ path: ":memory:" });
    runtime = createMessageRuntime({
      store,
      adapters: [createQaAdapter(config, DEFAULT_QA_BOT.token)],
      delivery: { pollIntervalMs: 10, backoff: { baseMs: 40, maxMs: 300 } },
    });
    await runtime.start();
    // Held 1.2× the client timeout, then stored: the client has already seen a timeout.
    platform.faults.failNext({ kind: "delay", delayMs: 1_200 }, { op: "send" });
    const started = Date.now();
    await runtime.enqueue(
      {
        id: "m1",
        channel: "qa",
        accountId: DEFAULT_QA_BOT.id,
        direction: "outbound",
        target: { kind: "group", id: "c1" },
        body: { markdown: "stored late" },
      },
      { idempotencyKey: "late-1" },
    );
    const intent = await eventually(
      () => store?.getIntentByIdempotencyKey("late-1"),
      (i) => i?.status === "sent",
      { timeoutMs: 10_000 },
    );
    await new Promise((r) => setTimeout(r, 300)); // a blind replay would have landed by now
    const visible = platform.state.messages({ chat: "c1" });
    expect(visible.map((m) => m.text)).toEqual(["stored late"]);
    expect(intent?.receipt?.platformMessageIds).toEqual([visible[0]?.id]);
    expect(intent?.attempt).toBe(1);
    // Nothing was concluded before the platform could have stored the post.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * requestTimeoutMs);
  });
});
