/**
 * The turn scope (DESIGN §7; seed `threaded-activity-log.md`, "1a. turnId propagation through
 * subagents"): an `AsyncLocalStorage` frame that carries the **root** turn id through every
 * `await`, timer and callback started inside `runtime.turn`, so nested producers — subagents,
 * tools, grandchildren, completions that run after the handler returned — stamp the same
 * `turnId` without passing it around.
 *
 * The frame also holds the turn's pending work: sends, enqueues, live sessions and activity
 * made in the scope, and work handed to `spawn` / `subagent`. The turn ends when all of it
 * settled. This bookkeeping decides *when this process* writes `turn/end`; whether a turn is
 * complete is decided by the durable `turn/end` alone.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { ChannelMessage } from "../message/message.ts";

/** How a turn ended, as its owned resources learn it (`TurnOutcome` of `./types.ts`). */
export type TurnEndOutcome = "completed" | "aborted" | "error" | "interrupted";

/**
 * Something a turn opened that must not outlive it: a live session (cancelled unless it was
 * finalized), a typing indicator (stopped). Closed when the turn ends, whatever the outcome.
 */
export type TurnOwned = { close(outcome: TurnEndOutcome): Promise<void> };

/**
 * Something a turn shows in one conversation until it replies there (a typing indicator):
 * `onReply` resolves once nothing more is sent for it.
 */
export type ReplyWatcher = { conversation: string; onReply(): Promise<void> };

/** The shared state of one running turn (one per root turn, in this process). */
export class TurnState {
  readonly turnId: string;
  readonly conversation: string;
  readonly root: ChannelMessage;
  readonly controller = new AbortController();
  readonly signal: AbortSignal;
  /** Work the turn waits for. */
  readonly pending = new Set<Promise<unknown>>();
  /** Errors of spawned work (they make the outcome `error`). */
  readonly errors: unknown[] = [];
  /** Set once this process wrote (or tried to write) `turn/end`. */
  ended = false;
  /** Live sessions and typing indicators opened in the turn (closed when it ends). */
  readonly owned = new Set<TurnOwned>();
  /** Indicators that end when the turn replies in their conversation (`./replies.ts`). */
  readonly replyWatchers = new Set<ReplyWatcher>();
  #subagents = 0;

  constructor(p: {
    turnId: string;
    conversation: string;
    root: ChannelMessage;
    signal?: AbortSignal | undefined;
  }) {
    this.turnId = p.turnId;
    this.conversation = p.conversation;
    this.root = p.root;
    this.signal = p.signal
      ? AbortSignal.any([p.signal, this.controller.signal])
      : this.controller.signal;
  }

  /** Waits for `work` before ending; `failTurn` records its rejection as a turn error. */
  track<T>(work: Promise<T>, failTurn = false): Promise<T> {
    if (this.ended) return work;
    this.pending.add(work);
    work.then(
      () => this.pending.delete(work),
      (error: unknown) => {
        this.pending.delete(work);
        if (failTurn) this.errors.push(error);
      },
    );
    return work;
  }

  /** Resolves when nothing tracked is pending (work tracked while waiting is waited for too). */
  async settled(): Promise<void> {
    for (;;) {
      while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
      // Let continuations that are about to register more work run first.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.pending.size === 0) return;
    }
  }

  /**
   * Closes everything the turn opened (each once; errors are returned, not thrown). Resources
   * opened while closing are closed too.
   */
  async closeOwned(outcome: TurnEndOutcome): Promise<unknown[]> {
    const errors: unknown[] = [];
    while (this.owned.size > 0) {
      const batch = [...this.owned];
      this.owned.clear();
      const results = await Promise.allSettled(batch.map((r) => r.close(outcome)));
      for (const r of results) if (r.status === "rejected") errors.push(r.reason);
    }
    return errors;
  }

  /** A fresh subagent id: `${name}#${n}`, unique within the turn. */
  nextSubagentId(name: string): string {
    this.#subagents += 1;
    return `${name}#${this.#subagents}`;
  }
}

/** One level of the scope: the root turn plus where in the subagent tree the code runs. */
export type TurnFrame = {
  readonly state: TurnState;
  /** Innermost subagent, absent at the turn's top level. */
  readonly subagentId?: string;
  /** 0 at the top level; +1 per nested `subagent` / nested `runtime.turn`. */
  readonly depth: number;
};

const storage = new AsyncLocalStorage<TurnFrame>();

/** What code running inside a turn can learn about it. */
export type CurrentTurn = {
  /** The root turn id. */
  turnId: string;
  conversation: string;
  subagentId?: string;
  /** Nesting depth below the turn's top level. */
  depth: number;
  signal: AbortSignal;
};

/** The frame of the calling code, if it runs inside a turn. */
export function currentFrame(): TurnFrame | undefined {
  return storage.getStore();
}

/**
 * The turn the calling code runs in (through any number of awaits, timers and nested
 * subagents), or `undefined` outside a turn.
 */
export function currentTurn(): CurrentTurn | undefined {
  const frame = storage.getStore();
  if (!frame) return undefined;
  return {
    turnId: frame.state.turnId,
    conversation: frame.state.conversation,
    depth: frame.depth,
    signal: frame.state.signal,
    ...(frame.subagentId === undefined ? {} : { subagentId: frame.subagentId }),
  };
}

/** The root turn id of the calling code, or `undefined` outside a turn. */
export function currentTurnId(): string | undefined {
  return storage.getStore()?.state.turnId;
}

/** Runs `fn` in `frame`. */
export function runInFrame<T>(frame: TurnFrame, fn: () => T): T {
  return storage.run(frame, fn);
}

/**
 * Registers `work` with the calling code's turn, so the turn ends only after it settles
 * (its rejection is left to the caller). Returns `work`; a no-op outside a turn.
 */
export function trackInTurn<T>(work: Promise<T>): Promise<T> {
  const state = storage.getStore()?.state;
  return state ? state.track(work) : work;
}

/**
 * Binds resources to the calling code's turn: returns a function that registers one (closed
 * when the turn ends, whatever the outcome — DESIGN §7). Call it synchronously where the
 * resource is requested; the returned function may be called later. Outside a turn (or after
 * it ended) the resource is not owned and `false` is returned.
 */
export function turnOwner(): (resource: TurnOwned) => boolean {
  const state = storage.getStore()?.state;
  return (resource) => {
    if (!state || state.ended) return false;
    state.owned.add(resource);
    return true;
  };
}
