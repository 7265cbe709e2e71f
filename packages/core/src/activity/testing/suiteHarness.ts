/**
 * What the threaded activity log suite needs from a channel ({@link ActivityLogSuiteHarness}),
 * and the tools it runs on: manual timers for the forwarder's debounce and retry, and a logger
 * that keeps its lines.
 *
 * @module
 */
import type { ActivityLogForwarder } from "../../activity/ActivityLogForwarder.ts";
import type { ActivityLogOptions } from "../../activity/types.ts";
import type { LiveTimers } from "../../live/types.ts";
import type { HeraldLogger } from "../../logger.ts";
import type { DurableSendIntent } from "../../message/intent.ts";
import type { ChannelMessage } from "../../message/message.ts";
import type { MessageRuntime } from "../../runtime.ts";
import { sleep } from "../../sleep.ts";
import { scaledMs } from "../../testing/timeScale.ts";

/** A message as the platform shows it, for the suite's assertions. */
export type SuiteVisibleMessage = {
  /** Platform message id. */
  id: string;
  text: string;
  /** The thread it is in; absent at the top level of the chat. */
  thread?: string;
  /** True for messages the bot sent (false for what the suite posted as a user). */
  byBot: boolean;
};

/** Where a user message is posted. */
export type SuiteWhere = {
  chat: string;
  /** Post inside this existing thread. */
  thread?: string;
  /** The chat is a direct chat. */
  dm?: boolean;
  /** The space (workspace, guild) the chat belongs to. */
  spaceId?: string;
};

/**
 * A channel under test: a started runtime whose adapter declares `threads.reply` and
 * `live.edit`, and the platform's visible state and faults. One per test.
 */
export type ActivityLogSuiteHarness = {
  runtime: MessageRuntime;
  /**
   * Posts `text` as a user and returns it as an inbound message (with `platformMessageId`,
   * `target.threadId` when posted in a thread, and the `threadAnchor` the channel's normalize
   * sets — best made by the adapter's own `normalize`), ready for `runtime.turn`.
   */
  say(text: string, where: SuiteWhere): Promise<ChannelMessage>;
  /** The chat's visible (not deleted) messages, in order. */
  visible(chat: string): Promise<SuiteVisibleMessage[]>;
  /**
   * Makes the next `times` platform calls of `op` fail: 403 (permission, terminal) or 404
   * (not found).
   */
  failNext(op: "send" | "edit", status: 403 | 404, times?: number): void | Promise<void>;
  /** Deletes a message as a user would (the platform answers 404 to edits afterwards). */
  deleteAsUser(chat: string, messageId: string): Promise<void>;
  /**
   * The thread id a log anchored on `inbound` is expected to show.
   * @defaultValue `inbound.threadAnchor?.threadId`
   */
  expectedThread?(inbound: ChannelMessage): string | undefined;
  close(): Promise<void>;
};

/** One line a {@link captureLogger} was given. */
export type LogLine = { level: "debug" | "info" | "warn" | "error"; msg: string; obj: object };

/** A logger that keeps every line (with its bindings merged in). */
export function captureLogger(lines: LogLine[] = [], bindings: object = {}): HeraldLogger {
  const at =
    (level: LogLine["level"]) =>
    (obj: object, msg = ""): void => {
      lines.push({ level, msg, obj: { ...bindings, ...obj } });
    };
  return {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: (more) => captureLogger(lines, { ...bindings, ...more }),
  };
}

/** Timers that fire only when told, in due order; they never fire by themselves. */
export class ManualTimers implements LiveTimers {
  #now = 0;
  #seq = 0;
  readonly #queue = new Map<number, { at: number; fn: () => void }>();
  /** Every delay ever scheduled, in ms, in order. */
  readonly delays: number[] = [];

  /** Timers scheduled and not fired or cleared. */
  get size(): number {
    return this.#queue.size;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    this.#seq += 1;
    this.delays.push(ms);
    this.#queue.set(this.#seq, { at: this.#now + Math.max(0, ms), fn });
    return this.#seq;
  }

  clearTimeout(handle: unknown): void {
    this.#queue.delete(handle as number);
  }

  /** Fires the earliest timer. @returns false when none is scheduled. */
  fireNext(): boolean {
    let next: [number, { at: number; fn: () => void }] | undefined;
    for (const entry of this.#queue) {
      if (!next || entry[1].at < next[1].at) next = entry;
    }
    if (!next) return false;
    this.#queue.delete(next[0]);
    this.#now = Math.max(this.#now, next[1].at);
    next[1].fn();
    return true;
  }
}

/** What every case gets. */
export type SuiteContext = {
  h: ActivityLogSuiteHarness;
  timers: ManualTimers;
  logs: LogLine[];
  /** A fresh chat id for this test. */
  chat: string;
  /** Creates the forwarder under test (on the suite's timers and logger). */
  forwarder(options?: ActivityLogOptions): ActivityLogForwarder;
  /**
   * Lets the forwarder finish: fires every pending debounce and retry timer and waits until
   * its queued platform calls settled (real time, at most 10 s).
   */
  settle(): Promise<void>;
  /** Waits for the forwarder's queued platform calls, firing no timer. */
  idle(): Promise<void>;
  /** Bot messages of the chat, with `thread` as shown. */
  bot(chat?: string): Promise<SuiteVisibleMessage[]>;
  /** The thread a log anchored on `inbound` should be in. */
  threadOf(inbound: ChannelMessage): string | undefined;
  /** Intents the runtime holds for a turn, oldest first. */
  intents(turnId: string): Promise<DurableSendIntent[]>;
  /** Closes the forwarders and the harness. */
  dispose(): Promise<void>;
};

/** Builds the per-test context over a harness. */
export function suiteContext(
  h: ActivityLogSuiteHarness,
  chat: string,
  create: (options: ActivityLogOptions) => ActivityLogForwarder,
): SuiteContext {
  const timers = new ManualTimers();
  const logs: LogLine[] = [];
  let current: ActivityLogForwarder | undefined;
  const created: ActivityLogForwarder[] = [];
  return {
    h,
    timers,
    logs,
    chat,
    forwarder(options = {}) {
      current = create({ timers, logger: captureLogger(logs), ...options });
      created.push(current);
      return current;
    },
    async settle() {
      const deadline = Date.now() + scaledMs(10_000);
      let quietRounds = 0;
      while (Date.now() < deadline) {
        if (timers.fireNext()) {
          quietRounds = 0;
          continue;
        }
        const idle = await Promise.race([
          (current?.idle() ?? Promise.resolve()).then(() => true),
          sleep(20).then(() => false),
        ]);
        if (idle && timers.size === 0) {
          quietRounds += 1;
          if (quietRounds >= 2) return;
          await sleep(2);
        }
      }
      throw new Error("the activity log did not settle within 10 s");
    },
    async idle() {
      await current?.idle();
    },
    async bot(c = chat) {
      return (await h.visible(c)).filter((m) => m.byBot);
    },
    threadOf(inbound) {
      return h.expectedThread ? h.expectedThread(inbound) : inbound.threadAnchor?.threadId;
    },
    async intents(turnId) {
      const all = await h.runtime.store.listIntents({ limit: 1_000 });
      return all.filter((i) => i.turnId === turnId);
    },
    async dispose() {
      for (const f of created) await f.close().catch(() => {});
      await h.close();
    },
  };
}
