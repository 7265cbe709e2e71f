/**
 * The threaded activity log on Google Chat (seed `threaded-activity-log.md`, "E2E test plan":
 * all 22 cases, plus the suite's cases 23–27 on thread anchors and placement, 27 being C21):
 * core's forwarder over the real adapter and `@googleapis/chat` client against the fake Chat
 * API. Inbound messages are made by the adapter's own `normalize` from the fake's MESSAGE
 * events, so the thread anchor is the message's `thread.name` — a thread name, never a message
 * name; DMs (`DIRECT_MESSAGE` spaces) get none.
 *
 * After every case the wire is checked too (seed cases 1, 2, 4; CASES C21): every create that
 * names a thread names a thread (`spaces/*\/threads/*`) with
 * `REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD`, and every edit is an update with `updateMask: text`.
 */
import { describeActivityLogSuite } from "@herald/plugin-sdk/contract";
import { createMessageRuntime, SqliteStateStore } from "@herald/plugin-sdk/testing";
import { expect } from "vitest";
import { accessTokenCredentials } from "./auth.ts";
import { createGoogleChatAdapter, GOOGLE_CHAT_CHANNEL_ID } from "./index.ts";
import { isThreadName } from "./names.ts";
import { REPLY_OPTION } from "./send.ts";
import { ALICE, FAKE_ACCESS_TOKEN, FakeGoogleChat } from "./testing/FakeGoogleChat.ts";
import { displayedText, testConfig } from "./testing/harness.ts";

describeActivityLogSuite("googlechat", async () => {
  const fake = await FakeGoogleChat.start();
  const config = testConfig({
    rootUrl: fake.rootUrl,
    accessToken: FAKE_ACCESS_TOKEN,
    audience: fake.audience,
    certsUrls: fake.certsUrls,
  });
  const adapter = createGoogleChatAdapter(config, accessTokenCredentials(FAKE_ACCESS_TOKEN));
  const store = new SqliteStateStore({ path: ":memory:" });
  const runtime = createMessageRuntime({
    store,
    adapters: [adapter],
    delivery: { pollIntervalMs: 5 },
    live: { recoveryIntervalMs: 0 },
  });
  await runtime.start();
  // The suite names chats; each is a space of the fake (a DM space when asked for one).
  const spaces = new Map<string, string>();
  const spaceOf = (chat: string, dm = false): string => {
    let space = spaces.get(chat);
    if (!space) {
      space = fake.createSpace(dm ? "DIRECT_MESSAGE" : "SPACE", chat).name;
      spaces.set(chat, space);
    }
    return space;
  };
  return {
    runtime,
    async say(text, where) {
      const space = spaceOf(where.chat, where.dm);
      const message = fake.store.add({
        space,
        thread: where.thread ?? fake.store.newThread(space),
        sender: ALICE,
        text,
      });
      const inbound = await adapter.receive?.normalize(fake.messageEvent(message), {
        channel: GOOGLE_CHAT_CHANNEL_ID,
        accountId: "main",
        receivedAt: Date.now(),
      });
      if (!inbound || !("direction" in inbound)) throw new Error("normalize gave no message");
      return where.spaceId
        ? { ...inbound, target: { ...inbound.target, spaceId: where.spaceId } }
        : inbound;
    },
    async visible(chat) {
      return fake.store.messages({ space: spaceOf(chat) }).map((m) => ({
        id: m.name,
        text: displayedText(fake.store, m),
        byBot: m.sender.type === "BOT",
        ...(m.root ? {} : { thread: m.thread }),
      }));
    },
    failNext(op, status, times = 1) {
      fake.faults.failNext({ kind: "status", status }, { op, times });
    },
    async deleteAsUser(_chat, name) {
      const m = fake.store.live(name);
      if (m) fake.store.state.delete(m.id);
    },
    async close() {
      await runtime.stop(1_000);
      for (const create of fake.creates) {
        const thread = create.body.thread as { name?: string } | undefined;
        if (thread === undefined) expect(create.messageReplyOption).toBeUndefined();
        else {
          expect(isThreadName(String(thread.name))).toBe(true);
          expect(create.messageReplyOption).toBe(REPLY_OPTION);
        }
      }
      for (const update of fake.updates) expect(update.updateMask).toBe("text");
      await store.close();
      await fake.close();
    },
  };
});
