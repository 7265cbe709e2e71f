/**
 * The activity log of one turn (seed `threaded-activity-log.md`, "Threading behavior",
 * "Overflow handling", "Error handling"; the seed's `TurnContext`): entries are the source of
 * truth, the posted text is the condenser's view of them. The first entry opens the log
 * message in the turn's thread at once; later ones are coalesced into debounced edits; the
 * condenser may roll the log over into a new message in the same thread. Every platform call
 * goes through the durable send path, one at a time.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { describeError } from "../context/errorInfo.ts";
import { DeliveryFailedError, DeliveryPendingError } from "../delivery/errors.ts";
import { delay } from "../live/timers.ts";
import type { LiveTimers } from "../live/types.ts";
import type { HeraldLogger } from "../logger.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { MessageReceipt } from "../message/receipt.ts";
import { placeReply, type ReplyAddress } from "../message/reply.ts";
import type { SendApi } from "../send/SendRuntime.ts";
import { condenseTurnLog } from "./condense.ts";
import { activityBody, renderTurnLogLine } from "./format.ts";
import type { CondenseStrategy, TurnLogEntry } from "./types.ts";

/** Resolved settings and the send path, shared by every turn of one forwarder. */
export type TurnLogHost = {
  send: SendApi["send"];
  edit: SendApi["edit"];
  timers: LiveTimers;
  log: HeraldLogger;
  maxChars: number;
  strategy: CondenseStrategy;
  debounceMs: number;
  retryDelayMs: number;
  waitMs: number;
};

type EditOutcome = "ok" | "gone" | "failed";

/** The log message being edited. */
type LogMessage = { receipt: MessageReceipt; text: string; version: number };

/** One turn's log: where it goes, its entries and the log message being edited. */
export class TurnLogThread {
  readonly turnId: string;
  readonly root: ChannelMessage;
  /** A direct chat: no thread; `thread-log` is dropped. */
  readonly dm: boolean;
  /** Activity may go into a thread (channel capable, threads on for the space, anchor known). */
  readonly threaded: boolean;
  /** Where thread messages go: the thread under the root (`root.threadAnchor`). */
  readonly thread: ReplyAddress;
  readonly #host: TurnLogHost;
  readonly #log: HeraldLogger;
  #entries: TurnLogEntry[] = [];
  /** How many of `#entries` the posted text reflects. */
  #rendered = 0;
  #message: LogMessage | undefined;
  /** Index of the current log message in the thread (rollovers and reopenings count up). */
  #index = 0;
  #degraded = false;
  #opening = false;
  #finished = false;
  #timer: unknown;
  #chain: Promise<void> = Promise.resolve();
  #posts = 0;

  constructor(p: {
    turnId: string;
    root: ChannelMessage;
    dm: boolean;
    threaded: boolean;
    host: TurnLogHost;
  }) {
    this.turnId = p.turnId;
    this.root = p.root;
    this.dm = p.dm;
    this.threaded = p.threaded;
    this.thread = placeReply(p.root, "thread");
    this.#host = p.host;
    this.#log = p.host.log.child({ turnId: p.turnId });
  }

  /** True once opening the log failed: the rest of the turn's log entries go top-level. */
  get degraded(): boolean {
    return this.#degraded;
  }

  /**
   * Adds a log entry. The first one (or the first after the log message was lost) opens a log
   * message now; later ones are shown by one debounced edit.
   * @returns the immediate platform call, if one was started (never rejects).
   */
  addEntry(entry: TurnLogEntry): Promise<void> {
    this.#entries.push(entry);
    if (this.#degraded || (!this.#message && !this.#opening)) {
      this.#opening = true;
      return this.#enqueue(async () => {
        try {
          await this.#flush();
        } finally {
          this.#opening = false;
        }
      });
    }
    this.#schedule();
    return Promise.resolve();
  }

  /** Posts `text` as its own message at the top level of the turn's chat. */
  postTopLevel(text: string, id: string): Promise<void> {
    return this.#enqueue(() => this.#sendTopLevel(text, `activity:${this.turnId}:top:${id}`));
  }

  /** Posts `text` as its own message inside the turn's thread (a policy request). */
  postInThread(text: string, id: string, card?: unknown): Promise<void> {
    return this.#enqueue(async () => {
      try {
        await this.#host.send(
          this.#threadMessage(text, card === undefined ? {} : { raw: { card } }),
          this.#sendOptions(`activity:${this.turnId}:msg:${id}`),
        );
      } catch (error) {
        this.#log.error({ error: describeError(error) }, "could not post into the turn thread");
      }
    });
  }

  /** Flushes the pending edit now (the turn ended). Later entries are not expected. */
  finish(): Promise<void> {
    this.#finished = true;
    this.#clearTimer();
    return this.#enqueue(() => this.#flush());
  }

  /** Resolves when every queued platform call settled. */
  idle(): Promise<void> {
    return this.#chain;
  }

  /** Cancels a pending debounce timer (the forwarder closes). */
  cancel(): void {
    this.#clearTimer();
  }

  #enqueue(op: () => Promise<void>): Promise<void> {
    this.#chain = this.#chain.then(op).catch((error: unknown) => {
      this.#log.error({ error: describeError(error) }, "activity log operation failed");
    });
    return this.#chain;
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#finished) return;
    this.#timer = this.#host.timers.setTimeout(() => {
      this.#timer = undefined;
      void this.#enqueue(() => this.#flush());
    }, this.#host.debounceMs);
    (this.#timer as { unref?: () => void } | undefined)?.unref?.();
  }

  #clearTimer(): void {
    if (this.#timer === undefined) return;
    this.#host.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Brings the platform up to date with `#entries` (create, edit, roll over, fall back). */
  async #flush(): Promise<void> {
    this.#clearTimer();
    for (;;) {
      const count = this.#entries.length;
      if (count <= this.#rendered) return;
      if (this.#degraded) {
        const lines = this.#entries.slice(this.#rendered).map(renderTurnLogLine);
        this.#rendered = count;
        this.#posts += 1;
        await this.#sendTopLevel(
          lines.join("\n"),
          `activity:${this.turnId}:fallback:${this.#posts}`,
        );
        return;
      }
      const result = condenseTurnLog(this.#entries, {
        maxChars: this.#host.maxChars,
        strategy: this.#host.strategy,
      });
      if (result.kind === "fits") {
        if (await this.#write(result.text)) this.#rendered = count;
        else if (!this.#degraded) return; // lost: a fresh log message opens on the next entry
        continue;
      }
      if (!(await this.#write(result.finalText))) {
        if (!this.#degraded) return;
        continue;
      }
      // Rolled over: the next message in the same thread starts with the carried entries.
      this.#message = undefined;
      this.#index += 1;
      this.#entries = [...result.carryEntries];
      this.#rendered = 0;
    }
  }

  /** Shows `text` in the current log message, opening one when there is none. */
  async #write(text: string): Promise<boolean> {
    const current = this.#message;
    if (!current) {
      try {
        const receipt = await this.#host.send(
          this.#threadMessage(text),
          this.#sendOptions(`activity:${this.turnId}:log:${this.#index}`),
        );
        this.#message = { receipt, text, version: 0 };
        return true;
      } catch (error) {
        this.#log.error(
          { error: describeError(error) },
          "could not open the activity log message; this turn's activity goes top-level",
        );
        this.#degraded = true;
        return false;
      }
    }
    if (text === current.text) return true;
    const first = await this.#edit(current, text, "");
    if (first === "ok") return true;
    if (first === "failed") {
      await delay(this.#host.timers, this.#host.retryDelayMs);
      if ((await this.#edit(current, text, "r")) === "ok") return true;
      this.#log.warn(
        { index: this.#index },
        "activity log edit failed twice; the message keeps its last text and a new one opens on the next entry",
      );
    } else {
      this.#log.warn(
        { index: this.#index },
        "activity log message is gone (deleted); a new one opens on the next entry",
      );
    }
    this.#entries = this.#entries.slice(this.#rendered);
    this.#rendered = 0;
    this.#message = undefined;
    this.#index += 1;
    return false;
  }

  async #edit(current: LogMessage, text: string, suffix: string): Promise<EditOutcome> {
    if (suffix === "") current.version += 1;
    const key = `activity:${this.turnId}:log:${this.#index}:v${current.version}${suffix}`;
    try {
      const receipt = await this.#host.edit(
        current.receipt,
        this.#threadMessage(text),
        this.#sendOptions(key),
      );
      // A channel that replaces a vanished message with a fresh send answers with its new id.
      if (receipt.primaryPlatformMessageId) current.receipt = receipt;
      current.text = text;
      return "ok";
    } catch (error) {
      if (error instanceof DeliveryPendingError) {
        // Queued behind a retry: it will land; the next edit waits for it (same thread).
        current.text = text;
        return "ok";
      }
      if (error instanceof DeliveryFailedError && error.failure?.kind === "not_found") {
        return "gone";
      }
      this.#log.warn({ error: describeError(error), key }, "activity log edit failed");
      return "failed";
    }
  }

  async #sendTopLevel(text: string, key: string): Promise<void> {
    const message: ChannelMessage = {
      id: randomUUID(),
      channel: this.root.channel,
      direction: "outbound",
      target: this.root.target,
      body: activityBody(text),
      ...(this.root.accountId === undefined ? {} : { accountId: this.root.accountId }),
    };
    try {
      await this.#host.send(message, this.#sendOptions(key));
    } catch (error) {
      this.#log.error({ error: describeError(error) }, "could not post activity top-level");
    }
  }

  #threadMessage(text: string, extra: Partial<ChannelMessage> = {}): ChannelMessage {
    const { root, thread } = this;
    return {
      id: randomUUID(),
      channel: root.channel,
      direction: "outbound",
      target: thread.target,
      body: activityBody(text),
      relation: thread.relation,
      ...(root.accountId === undefined ? {} : { accountId: root.accountId }),
      ...extra,
    };
  }

  #sendOptions(idempotencyKey: string) {
    return { idempotencyKey, turnId: this.turnId, waitMs: this.#host.waitMs };
  }
}
