/**
 * The threaded activity log's end-to-end cases (seed `threaded-activity-log.md`, "E2E test
 * plan", and the suite's thread-anchor cases) against the QA channel: its real adapter over
 * HTTP, threads on the QA platform, inbound messages made by the adapter's own `normalize`.
 */
import { describeActivityLogSuite } from "@herald/plugin-sdk/contract";
import { createMessageRuntime, SqliteStateStore } from "@herald/plugin-sdk/testing";
import { createQaAdapter } from "./index.ts";
import { QA_CHANNEL_ID } from "./receive.ts";
import { testConfig } from "./testing/harness.ts";
import { DEFAULT_QA_BOT, QaPlatform } from "./testing/platform/QaPlatform.ts";

describeActivityLogSuite("qa-channel", async () => {
  const platform = await QaPlatform.start();
  const config = testConfig({
    baseUrl: platform.url,
    token: DEFAULT_QA_BOT.token,
    maxLength: 4_000,
    delivery: "idempotent",
  });
  const store = new SqliteStateStore({ path: ":memory:" });
  const adapter = createQaAdapter(config, DEFAULT_QA_BOT.token);
  const runtime = createMessageRuntime({
    store,
    adapters: [adapter],
    delivery: { pollIntervalMs: 5 },
    live: { recoveryIntervalMs: 0 },
  });
  await runtime.start();
  return {
    runtime,
    async say(text, where) {
      platform.createChat({ id: where.chat, type: where.dm ? "direct" : "group" });
      const posted = platform.post({
        chat: where.chat,
        text,
        author: { id: "alice", name: "Alice", bot: false },
        ...(where.thread ? { thread: where.thread } : {}),
      });
      // Through the adapter's own normalize, so the suite sees the threadAnchor it sets.
      const event = {
        seq: platform.lastSeq,
        type: "message.created",
        message: platform.toWire(posted),
      };
      const inbound = await adapter.receive?.normalize(event, {
        channel: QA_CHANNEL_ID,
        accountId: DEFAULT_QA_BOT.id,
        receivedAt: Date.now(),
      });
      if (!inbound || !("direction" in inbound))
        throw new Error("the QA normalize gave no message");
      const spaceId = where.spaceId;
      return spaceId ? { ...inbound, target: { ...inbound.target, spaceId } } : inbound;
    },
    async visible(chat) {
      return platform.state.messages({ chat }).map((m) => ({
        id: m.id,
        text: m.text,
        byBot: m.author.bot,
        ...(m.thread === undefined ? {} : { thread: m.thread }),
      }));
    },
    failNext(op, status, times = 1) {
      const code = status === 404 ? "not_found" : "forbidden";
      platform.faults.failNext({ kind: "status", status, code }, { op, times });
    },
    async deleteAsUser(_chat, id) {
      platform.state.delete(id);
    },
    async close() {
      await runtime.stop(1_000);
      await store.close();
      await platform.close();
    },
  };
});
