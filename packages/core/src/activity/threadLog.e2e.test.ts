/**
 * The seed's 22 end-to-end cases against core's fake platform, threads declared. The edit
 * not-found path is the forwarder's own here (`freshSendOnEditNotFound: false`); the adapter's
 * replace-on-404 path is covered in `forwarder.test.ts`.
 */
import { createMessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { describeActivityLogSuite } from "./testing/suite.ts";

describeActivityLogSuite("core fake platform", async () => {
  const platform = new FakePlatform();
  const store = new SqliteStateStore({ path: ":memory:" });
  const runtime = createMessageRuntime({
    store,
    adapters: [
      createFakeAdapter({
        threads: true,
        freshSendOnEditNotFound: false,
        transport: inProcessTransport(platform),
      }),
    ],
    delivery: { pollIntervalMs: 5 },
    live: { recoveryIntervalMs: 0 },
  });
  await runtime.start();
  let n = 0;
  return {
    runtime,
    async say(text, where) {
      const posted = platform.postAsUser({
        chat: where.chat,
        text,
        ...(where.thread ? { thread: where.thread } : {}),
      });
      n += 1;
      return {
        id: `in-${n}`,
        channel: "qa",
        accountId: "bot-1",
        direction: "inbound",
        target: {
          kind: where.dm ? "direct" : "group",
          id: where.chat,
          ...(where.thread ? { threadId: where.thread } : {}),
          ...(where.spaceId ? { spaceId: where.spaceId } : {}),
        },
        body: { markdown: text },
        platformMessageId: posted.id,
      };
    },
    async visible(chat) {
      return platform.visible(chat).map((m) => ({
        id: m.id,
        text: m.text,
        byBot: m.author === undefined,
        ...(m.thread === undefined ? {} : { thread: m.thread }),
      }));
    },
    failNext(op, status, times = 1) {
      const code = status === 404 ? "not_found" : "forbidden";
      platform.failNext({ type: "status", status, code }, times, op);
    },
    async deleteAsUser(_chat, id) {
      const message = platform.messages.find((m) => m.id === id);
      if (message) message.deleted = true;
    },
    async close() {
      await runtime.stop(1_000);
      await store.close();
    },
  };
});
