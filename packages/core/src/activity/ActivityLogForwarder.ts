/**
 * The activity log forwarder (seed `threaded-activity-log.md`; DESIGN §7), generic over every
 * channel whose adapter declares `capabilities.threads.reply` and `capabilities.live.edit`:
 * one log message per turn inside a thread anchored on the user's message (or the user's own
 * thread), edited as activity arrives, so only the first entry notifies anyone.
 *
 * It listens to `runtime.onTurn` (turn started → a log context; turn ended → flush and drop
 * it) and `runtime.onActivity` (route → drop / top-level / thread-log / thread-message), and
 * sends through the runtime's durable `send` / `edit`.
 *
 * @module
 */

import { describeError } from "../context/errorInfo.ts";
import { nodeTimers } from "../live/timers.ts";
import { silentLogger } from "../logger.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { MessageRuntime } from "../runtime.ts";
import type { TurnLifecycleEvent, TurnMessage } from "../turn/types.ts";
import { DEFAULT_MAX_LOG_MESSAGE_CHARS } from "./condense.ts";
import {
  activityBody,
  DEFAULT_MAX_TOOL_PREVIEW,
  type FormatTurnLogOptions,
  formatTurnLogEntry,
  plainActivityText,
  renderTurnLogLine,
} from "./format.ts";
import { routeMessage } from "./route.ts";
import { type TurnLogHost, TurnLogThread } from "./TurnLogThread.ts";
import type { ActivityLogOptions, TurnLogEntry } from "./types.ts";

/** What the forwarder needs from the runtime. */
export type ActivityLogRuntime = Pick<
  MessageRuntime,
  "send" | "edit" | "adapter" | "onTurn" | "onActivity"
>;

/** Defaults of {@link ActivityLogOptions}. */
export const ACTIVITY_LOG_DEFAULTS = {
  maxToolPreview: DEFAULT_MAX_TOOL_PREVIEW,
  maxLogMessageChars: DEFAULT_MAX_LOG_MESSAGE_CHARS,
  editDebounceMs: 1_000,
  editRetryDelayMs: 500,
  condenseStrategy: "rollover",
  waitMs: 15_000,
} as const;

/**
 * Forwards a runtime's turn activity into per-turn threaded logs.
 *
 * - **Turn root**: the log goes into the thread under the user's message, where the channel's
 *   `normalize` says it lives (`root.threadAnchor`: the user's own thread when they posted
 *   inside one, else one the reply starts). A message id is never used as a thread id; a root
 *   without an anchor gets its activity top-level.
 * - **Edits**: the first log entry posts at once; later ones are coalesced into one edit per
 *   `editDebounceMs`; the turn's end flushes at once.
 * - **Overflow**: the condenser decides (`condenseStrategy`); `rollover` continues in a new
 *   message in the same thread.
 * - **DMs**: on a channel without `capabilities.threads.inDirect`, no thread: log entries are
 *   dropped, policy requests go top-level. With it, DMs are threaded like any chat.
 * - **Opt-out**: `threads: false` globally, `threadsDisabled` per space, or a channel without
 *   thread replies and edits: activity goes top-level.
 * - **Failures**: opening the log fails → top-level for the rest of the turn; an edit fails →
 *   one retry after `editRetryDelayMs`, then that message is left as is and a fresh one opens
 *   on the next entry; the message was deleted (404) → a fresh one on the next entry.
 * - **No `turnId`**: a warning and top-level, never a second thread.
 *
 * The turn's final reply (`turn.reply`) is the bot's own send, to the root's own target (top
 * level when the user wrote top level); the forwarder never posts `assistant` messages again. State is in memory, per process (seed "Known
 * limitations"): after a restart a still-running turn's next entry opens a new log message.
 *
 * @example
 * const log = new ActivityLogForwarder(runtime, { editDebounceMs: 1_000 });
 * await runtime.turn(inbound, async (turn) => {
 *   await turn.activity({ role: "tool", name: "Read", input: "src/app.ts" });
 *   await turn.reply("Done.");
 * });
 * await log.close();
 */
export class ActivityLogForwarder {
  readonly #runtime: ActivityLogRuntime;
  readonly #options: ActivityLogOptions;
  readonly #host: TurnLogHost;
  readonly #format: FormatTurnLogOptions;
  readonly #turns = new Map<string, TurnLogThread>();
  readonly #loose = new Set<Promise<void>>();
  readonly #unsubscribe: Array<() => void>;

  /** Subscribes to `runtime.onTurn` and `runtime.onActivity` until {@link close}. */
  constructor(runtime: ActivityLogRuntime, options: ActivityLogOptions = {}) {
    this.#runtime = runtime;
    this.#options = options;
    const d = ACTIVITY_LOG_DEFAULTS;
    this.#host = {
      send: (message, o) => runtime.send(message, o),
      edit: (receipt, message, o) => runtime.edit(receipt, message, o),
      timers: options.timers ?? nodeTimers,
      log: (options.logger ?? silentLogger).child({ lifecycle: "activity-log" }),
      maxChars: options.maxLogMessageChars ?? d.maxLogMessageChars,
      strategy: options.condenseStrategy ?? d.condenseStrategy,
      debounceMs: options.editDebounceMs ?? d.editDebounceMs,
      retryDelayMs: options.editRetryDelayMs ?? d.editRetryDelayMs,
      waitMs: options.waitMs ?? d.waitMs,
    };
    this.#format = {
      maxToolPreview: options.maxToolPreview ?? d.maxToolPreview,
      ...(options.timeZone === undefined ? {} : { timeZone: options.timeZone }),
    };
    this.#unsubscribe = [
      runtime.onTurn((event) => this.handleTurn(event)),
      runtime.onActivity((message) => this.handle(message)),
    ];
  }

  /** Opens a turn's log context (`started`), or flushes and drops it (`ended`). */
  async handleTurn(event: TurnLifecycleEvent): Promise<void> {
    if (event.type === "started") {
      this.#turns.set(event.turnId, this.#open(event.turnId, event.root));
      return;
    }
    const thread = this.#turns.get(event.turnId);
    if (!thread) return;
    await thread.finish();
    this.#turns.delete(event.turnId);
  }

  /**
   * Routes one activity message and starts its platform call.
   * @returns when the immediate call (opening the log, a top-level post) settled; debounced
   * edits happen later. Never rejects: failures are logged and handled as the seed says.
   */
  handle(message: TurnMessage): Promise<void> {
    const filters = this.#options.filters ?? {};
    const turnId = message.turnId;
    const thread = turnId === undefined ? undefined : this.#turns.get(turnId);
    if (!thread) {
      const dm = message.target?.kind === "direct";
      const destination = routeMessage(message, { filters, threads: false, dm });
      if (destination.kind === "drop") return Promise.resolve();
      if (message.role === "assistant") return Promise.resolve();
      this.#host.log.warn(
        { turnId, role: message.role, id: message.id },
        turnId === undefined
          ? "activity without a turnId: posted top-level, never into a thread"
          : "activity for a turn this forwarder has no context for: posted top-level",
      );
      return this.#postLoose(message);
    }
    const destination = routeMessage(message, { filters, threads: thread.threaded, dm: thread.dm });
    switch (destination.kind) {
      case "drop":
        return Promise.resolve();
      case "top-level":
        // The reply is the bot's own send (`turn.reply`); only other activity is posted here.
        if (message.role === "assistant") return Promise.resolve();
        return thread.postTopLevel(this.#text(message), message.id);
      case "thread-message":
        return thread.postInThread(
          plainActivityText(message),
          message.id,
          message.role === "policy-request" ? message.card : undefined,
        );
      case "thread-log":
        return thread.addEntry(this.#entry(message));
    }
  }

  /** Resolves when every platform call queued so far settled (pending debounces not included). */
  async idle(): Promise<void> {
    await Promise.all([...[...this.#turns.values()].map((t) => t.idle()), ...this.#loose]);
  }

  /** Unsubscribes, flushes every open turn's log and forgets it. */
  async close(): Promise<void> {
    for (const off of this.#unsubscribe) off();
    const open = [...this.#turns.values()];
    this.#turns.clear();
    await Promise.all(open.map((t) => t.finish()));
    await Promise.all(this.#loose);
  }

  #open(turnId: string, root: ChannelMessage): TurnLogThread {
    const adapter = this.#runtime.adapter(root.channel, root.accountId);
    const caps = adapter?.capabilities;
    const capable =
      caps?.threads?.reply === true && caps.live?.edit === true && adapter?.send.edit !== undefined;
    // A DM is threaded only where the channel has threads in DMs (DESIGN §8).
    const dm = root.target.kind === "direct" && caps?.threads?.inDirect !== true;
    const spaceId = root.target.spaceId ?? root.target.id;
    const disabled = this.#options.threadsDisabled;
    const spaceOff =
      typeof disabled === "function"
        ? disabled({
            channel: root.channel,
            spaceId,
            ...(root.accountId === undefined ? {} : { accountId: root.accountId }),
          })
        : (disabled?.includes(spaceId) ?? false);
    const anchored = root.threadAnchor !== undefined;
    const wanted = capable && this.#options.threads !== false && !spaceOff && !dm;
    if (wanted && !anchored) {
      this.#host.log.warn(
        { turnId, channel: root.channel },
        "the turn's root message has no threadAnchor (its channel's normalize sets none): activity goes top-level",
      );
    }
    return new TurnLogThread({
      turnId,
      root,
      dm,
      threaded: wanted && anchored,
      host: this.#host,
    });
  }

  #entry(message: TurnMessage): TurnLogEntry {
    const entry = formatTurnLogEntry(message, this.#format);
    if (entry) return entry;
    // A role routed into the log by `filters.routes` that the formatter does not log.
    const fallback = formatTurnLogEntry(
      { id: message.id, at: message.at, role: "log", text: plainActivityText(message) },
      this.#format,
    );
    if (!fallback) throw new Error("unreachable: log messages always format");
    return fallback;
  }

  #text(message: TurnMessage): string {
    const entry = formatTurnLogEntry(message, this.#format);
    return entry ? renderTurnLogLine(entry) : plainActivityText(message);
  }

  /** A top-level post for activity without a known turn, to the message's own target. */
  #postLoose(message: TurnMessage): Promise<void> {
    if (message.channel === undefined || message.target === undefined) {
      this.#host.log.warn({ id: message.id }, "activity without a channel and target: dropped");
      return Promise.resolve();
    }
    const outbound: ChannelMessage = {
      id: message.id,
      channel: message.channel,
      direction: "outbound",
      target: message.target,
      body: activityBody(this.#text(message)),
      ...(message.accountId === undefined ? {} : { accountId: message.accountId }),
    };
    const work = this.#runtime
      .send(outbound, {
        idempotencyKey: `activity:${message.turnId ?? "none"}:top:${message.id}`,
        waitMs: this.#host.waitMs,
        ...(message.turnId === undefined ? {} : { turnId: message.turnId }),
      })
      .then(
        () => {},
        (error: unknown) => {
          this.#host.log.error(
            { error: describeError(error) },
            "could not post activity top-level",
          );
        },
      );
    this.#loose.add(work);
    void work.finally(() => this.#loose.delete(work));
    return work;
  }
}
