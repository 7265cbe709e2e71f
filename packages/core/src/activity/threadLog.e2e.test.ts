/**
 * The seed's 22 end-to-end cases (and ours on thread anchors and placement) against core's fake
 * platform, threads declared, in two shapes: threads named by their root message's id, with
 * threads in DMs (Slack, Matrix), and threads with names of their own, none in DMs (Google
 * Chat: a message name passed as a thread name is a 400). The inbound's `threadAnchor` is set
 * as each platform's normalize would. The edit not-found path is the forwarder's own here
 * (`freshSendOnEditNotFound: false`); the adapter's replace-on-404 path is covered in
 * `forwarder.test.ts`.
 */
import { createMessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { describeActivityLogSuite } from "./testing/suite.ts";

for (const shape of [
  { name: "core fake platform (message-id threads, threads in DMs)", named: false, inDirect: true },
  { name: "core fake platform (named threads, none in DMs)", named: true, inDirect: false },
]) {
  describeActivityLogSuite(shape.name, async () => {
    const platform = new FakePlatform({ namedThreads: shape.named });
    const store = new SqliteStateStore({ path: ":memory:" });
    const runtime = createMessageRuntime({
      store,
      adapters: [
        createFakeAdapter({
          threads: { inDirect: shape.inDirect },
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
        // As the platform's normalize: the thread the user wrote in, else the one under the
        // message; none in a DM where the platform has no threads.
        const anchor =
          where.thread ??
          (where.dm && !shape.inDirect ? undefined : platform.threadUnder(posted.id));
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
          ...(anchor === undefined ? {} : { threadAnchor: { threadId: anchor } }),
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
}
