/**
 * Harness of the turn and activity-log tests: a runtime on in-memory SQLite over a fake
 * platform whose adapter declares thread replies and edits, on manual time, with a logger that
 * keeps what it was told and a helper that posts a user message and returns it as the inbound
 * message of a turn.
 *
 * @module
 */
import { ActivityLogForwarder } from "../../activity/ActivityLogForwarder.ts";
import { captureLogger, type LogLine } from "../../activity/testing/suiteHarness.ts";
import type { ActivityLogOptions } from "../../activity/types.ts";
import { type ManualTime, manualTime } from "../../live/testing/manualTime.ts";
import type { ChannelMessage, MessageTarget } from "../../message/message.ts";
import { createMessageRuntime, type MessageRuntime } from "../../runtime.ts";
import { SqliteStateStore } from "../../state/sqlite/SqliteStateStore.ts";
import type { LedgerEvent } from "../../state/types.ts";
import {
  createFakeAdapter,
  type FakeAdapterOptions,
  inProcessTransport,
} from "../../testing/fakeAdapter.ts";
import { FakePlatform, type VisibleMessage } from "../../testing/fakePlatform.ts";
import type { TurnRuntimeOptions } from "../types.ts";

/** What {@link turnHarness} builds. */
export type TurnHarness = {
  runtime: MessageRuntime;
  platform: FakePlatform;
  store: SqliteStateStore;
  time: ManualTime;
  logs: LogLine[];
  /**
   * Posts `text` as a user in `chat` (optionally inside `thread`) and returns it as the
   * inbound message of a turn. `dm` makes the chat a direct chat.
   */
  say(
    text: string,
    o?: { chat?: string; thread?: string; dm?: boolean; spaceId?: string },
  ): ChannelMessage;
  /** An activity log forwarder on the harness's timers and logger. */
  activityLog(options?: ActivityLogOptions): ActivityLogForwarder;
  /** Every ledger event of a conversation. */
  ledger(conversation: string): Promise<LedgerEvent[]>;
  /** Visible messages of a chat, without the user's own. */
  botMessages(chat?: string): VisibleMessage[];
  close(): Promise<void>;
};

/** Builds and starts the harness. The adapter declares threads unless `adapter.threads` is false. */
export async function turnHarness(
  opts: { adapter?: Omit<FakeAdapterOptions, "transport">; turns?: TurnRuntimeOptions } = {},
): Promise<TurnHarness> {
  const time = manualTime(Date.UTC(2025, 0, 1, 12, 4, 0));
  const platform = new FakePlatform({ clock: time.now });
  const store = new SqliteStateStore({ path: ":memory:", clock: time.now });
  const logs: LogLine[] = [];
  const logger = captureLogger(logs);
  const runtime = createMessageRuntime({
    store,
    adapters: [
      createFakeAdapter({
        threads: true,
        ...opts.adapter,
        transport: inProcessTransport(platform),
      }),
    ],
    clock: time.now,
    random: () => 0.5,
    logger,
    delivery: { pollIntervalMs: 5, leaseMs: 10_000, backoff: { baseMs: 100, maxMs: 1_000 } },
    live: { timers: time.timers, recoveryIntervalMs: 0 },
    ...(opts.turns ? { turns: opts.turns } : {}),
  });
  await runtime.start();
  const forwarders: ActivityLogForwarder[] = [];
  let n = 0;
  return {
    runtime,
    platform,
    store,
    time,
    logs,
    say(text, o = {}) {
      const chat = o.chat ?? (o.dm ? "dm-1" : "room-1");
      const posted = platform.postAsUser({ chat, text, ...(o.thread ? { thread: o.thread } : {}) });
      n += 1;
      const target: MessageTarget = {
        kind: o.dm ? "direct" : "group",
        id: chat,
        ...(o.thread ? { threadId: o.thread } : {}),
        ...(o.spaceId ? { spaceId: o.spaceId } : {}),
      };
      return {
        id: `in-${n}`,
        channel: "qa",
        accountId: "bot-1",
        direction: "inbound",
        target,
        sender: { id: "user-1", displayName: "Ada" },
        body: { markdown: text },
        platformMessageId: posted.id,
        // As a normalize would: the user's thread, else the one under the message.
        threadAnchor: { threadId: o.thread ?? platform.threadUnder(posted.id) },
        timestamp: time.now(),
      };
    },
    activityLog(options = {}) {
      const forwarder = new ActivityLogForwarder(runtime, {
        timers: time.timers,
        logger,
        timeZone: "UTC",
        ...options,
      });
      forwarders.push(forwarder);
      return forwarder;
    },
    ledger: (conversation) => store.readLedger({ conversation, limit: 10_000 }),
    botMessages: (chat = "room-1") => platform.visible(chat).filter((m) => m.author === undefined),
    async close() {
      for (const f of forwarders) await f.close().catch(() => {});
      await runtime.stop(1_000);
      await store.close();
    },
  };
}
