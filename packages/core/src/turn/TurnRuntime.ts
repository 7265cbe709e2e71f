/**
 * The turn half of the message runtime (DESIGN §7): `runtime.turn`, `runtime.onTurn`,
 * `runtime.activity` / `runtime.onActivity`, `runtime.subagent` and `runtime.ledger`
 * (snapshot, branch eligibility, fork).
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { describeError } from "../context/errorInfo.ts";
import { currentFrame, runInFrame, type TurnFrame, type TurnState } from "../context/scope.ts";
import type { LiveTimers } from "../live/types.ts";
import type { HeraldLogger } from "../logger.ts";
import { replyKey } from "../message/keys.ts";
import type { ChannelMessage, MessageBody } from "../message/message.ts";
import type { MessageReceipt } from "../message/receipt.ts";
import { placeReply } from "../message/reply.ts";
import type { SendApi } from "../send/SendRuntime.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import { forkConversation } from "./fork.ts";
import { messageEvent } from "./ledger.ts";
import { runRootTurn } from "./runTurn.ts";
import { branchEligibility, readSnapshot } from "./snapshot.ts";
import type {
  ActivityListener,
  BranchTarget,
  ConversationSnapshot,
  ForkOptions,
  ForkResult,
  LedgerWindow,
  Turn,
  TurnInput,
  TurnListener,
  TurnMessage,
  TurnMessageInput,
  TurnOptions,
  TurnReplyOptions,
  TurnRuntimeOptions,
} from "./types.ts";

/** Defaults of {@link TurnRuntimeOptions}. */
export const TURN_DEFAULTS = { watchdogMs: 600_000, sweepWindow: 200 } as const;

/** What the turn runtime needs from the message runtime. */
export type TurnRuntimeDeps = {
  store: MessageStateStore;
  clock: () => number;
  logger: HeraldLogger;
  timers: LiveTimers;
  /** The durable send path (`turn.reply`). */
  send: SendApi["send"];
};

/** The turn ledger, read side and forks. */
export type TurnLedgerApi = {
  /**
   * Reads one window of a conversation's ledger: transcript nodes plus the completed turn
   * boundaries (`turnEnds`) in the window.
   * @defaultValue window `{ fromSeq: 1, limit: 1_000 }`
   */
  snapshot(query: { conversation: string; window?: LedgerWindow }): Promise<ConversationSnapshot>;
  /** The nodes of a snapshot that offer branch (pure; see {@link branchEligibility}). */
  branchEligibility(snapshot: ConversationSnapshot): readonly BranchTarget[];
  /**
   * Copies the conversation through the `turn/end` of the turn containing `atSeq`.
   * @throws ForkUnavailableError when `atSeq` is inside an open turn (or is no turn's event).
   * @throws ForkTargetNotEmptyError when `into` already has events.
   */
  fork(options: ForkOptions): Promise<ForkResult>;
};

/** The turn API the runtime exposes. */
export type TurnRuntime = {
  /**
   * Runs `fn` as a turn of the inbound message `input`: writes `turn/start` (+ the user node)
   * to the conversation ledger and runs `fn` in a turn scope, so every send, live message and
   * activity entry made inside — at any depth, also from work that completes after `fn`
   * returned — carries the root `turnId`. Resolves with `fn`'s value once `fn` and everything
   * tracked in the scope settled and `turn/end` was written. Called inside a turn, it joins
   * that turn (no new `turn/start`; the root `turnId` is kept).
   *
   * @throws StoreUnavailableError when `turn/start` cannot be written (`fn` is not run).
   * @throws TurnInterruptedError when the watchdog TTL ran out first (outcome `interrupted`).
   * @throws `fn`'s error, or the first error of `turn.spawn` work (outcome `error`).
   */
  turn<T>(input: TurnInput, fn: (turn: Turn) => Promise<T> | T, options?: TurnOptions): Promise<T>;
  /** Subscribes to `started` / `ended` events. @returns unsubscribe */
  onTurn(listener: TurnListener): () => void;
  /**
   * Records an activity message: stamps the root `turnId`, subagent and target from the turn
   * scope (explicit fields override), appends it to the turn's ledger as a `turn/message`
   * node and hands it to `onActivity` listeners (the activity log). Outside a turn (or after
   * its end) nothing is written to the ledger; listeners still get it.
   * @throws StoreUnavailableError when the node cannot be written.
   */
  activity(message: TurnMessageInput): Promise<TurnMessage>;
  /** Subscribes to recorded activity messages. @returns unsubscribe */
  onActivity(listener: ActivityListener): () => void;
  /**
   * Runs `fn` as a subagent of the current turn: a nested scope with its own `subagentId`
   * (`${name}#n`) that keeps the root `turnId`, with `subagent` started / done / failed
   * activity entries around it. Outside a turn it just runs `fn`.
   */
  subagent<T>(name: string, fn: () => Promise<T>): Promise<T>;
  ledger: TurnLedgerApi;
};

/** Builds the turn runtime. */
export function createTurnRuntime(
  deps: TurnRuntimeDeps,
  options: TurnRuntimeOptions = {},
): TurnRuntime {
  const log = deps.logger.child({ lifecycle: "turn" });
  const running = new Map<string, TurnState>();
  const turnListeners = new Set<TurnListener>();
  const activityListeners = new Set<ActivityListener>();

  const call = async <E>(listener: (e: E) => void | Promise<void>, event: E, what: string) => {
    try {
      await listener(event);
    } catch (error) {
      log.warn({ error: describeError(error) }, `${what} listener failed`);
    }
  };

  function stamp(input: TurnMessageInput, frame: TurnFrame | undefined): TurnMessage {
    const turnId = input.turnId ?? frame?.state.turnId;
    const state = turnId === undefined ? undefined : (running.get(turnId) ?? frame?.state);
    const root = state?.turnId === turnId ? state?.root : undefined;
    const subagentId =
      input.subagentId ?? (frame?.state.turnId === turnId ? frame?.subagentId : undefined);
    return {
      ...input,
      id: input.id ?? randomUUID(),
      at: input.at ?? deps.clock(),
      ...(turnId === undefined ? {} : { turnId }),
      ...(subagentId === undefined ? {} : { subagentId }),
      ...(root && input.channel === undefined ? { channel: root.channel } : {}),
      ...(root?.accountId !== undefined && input.accountId === undefined
        ? { accountId: root.accountId }
        : {}),
      ...(root && input.target === undefined ? { target: root.target } : {}),
    } as TurnMessage;
  }

  async function activity(input: TurnMessageInput): Promise<TurnMessage> {
    const frame = currentFrame();
    const message = stamp(input, frame);
    const state =
      message.turnId === undefined
        ? undefined
        : (running.get(message.turnId) ??
          (frame?.state.turnId === message.turnId ? frame.state : undefined));
    const record = async () => {
      if (state && !state.ended) {
        await deps.store.appendLedger([messageEvent(state.conversation, message)]);
      } else if (message.turnId !== undefined) {
        log.warn(
          { turnId: message.turnId, role: message.role },
          "activity for a turn that is not running here (ended, or another process); not written to the ledger",
        );
      }
      const delivered = Promise.all(
        [...activityListeners].map((l) => call(l, message, "activity")),
      );
      if (state) state.track(delivered);
      return message;
    };
    return state ? state.track(record()) : record();
  }

  async function subagent<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const frame = currentFrame();
    if (!frame) return fn();
    const child: TurnFrame = {
      state: frame.state,
      subagentId: frame.state.nextSubagentId(name),
      depth: frame.depth + 1,
    };
    return frame.state.track(
      runInFrame(child, async () => {
        const startedAt = deps.clock();
        await activity({ role: "subagent", name, status: "started" });
        try {
          const value = await fn();
          const durationMs = deps.clock() - startedAt;
          await activity({ role: "subagent", name, status: "done", durationMs });
          return value;
        } catch (error) {
          const durationMs = deps.clock() - startedAt;
          await activity({ role: "subagent", name, status: "failed", durationMs }).catch(() => {});
          throw error;
        }
      }),
    );
  }

  async function reply(
    state: TurnState,
    n: number,
    text: string | MessageBody,
    options: TurnReplyOptions = {},
  ): Promise<MessageReceipt> {
    const { root } = state;
    const { placement, attachments, actions, ...sendOptions } = options;
    const body = typeof text === "string" ? { markdown: text } : text;
    const message: ChannelMessage = {
      id: randomUUID(),
      channel: root.channel,
      direction: "outbound",
      ...placeReply(root, placement),
      body,
      ...(attachments?.length ? { attachments } : {}),
      ...(actions?.length ? { actions } : {}),
      ...(root.accountId === undefined ? {} : { accountId: root.accountId }),
    };
    await activity({ role: "assistant", text: body.markdown, messageId: message.id });
    return deps.send(message, {
      // One slot per (channel, account, inbound, n): a handler run again after a crash gets the
      // reply already decided, even when its text now differs (DESIGN §3 "Keys").
      idempotencyKey: replyKey(root, n),
      keyMatch: "slot",
      ...sendOptions,
    });
  }

  function handle(state: TurnState, frame: TurnFrame): Turn {
    let replies = 0;
    // The caller's frame when it runs inside this turn (a subagent keeps its id), else the handle's.
    const here = () => {
      const current = currentFrame();
      return current?.state === state ? current : frame;
    };
    return {
      turnId: state.turnId,
      conversation: state.conversation,
      root: state.root,
      signal: state.signal,
      reply: (text, o) => runInFrame(here(), () => reply(state, ++replies, text, o)),
      activity: (message) => runInFrame(here(), () => activity(message)),
      spawn(fn) {
        runInFrame(here(), () => {
          const work = Promise.resolve().then(fn);
          state.track(work, true);
          work.catch((error: unknown) => {
            if (state.ended) {
              log.warn({ error: describeError(error) }, "spawned work failed after its turn ended");
            }
          });
        });
      },
      subagent: (name, fn) => runInFrame(here(), () => subagent(name, fn)),
      abort: (reason) => state.controller.abort(reason),
    };
  }

  const runDeps = {
    store: deps.store,
    clock: deps.clock,
    log,
    timers: deps.timers,
    watchdogMs: options.watchdogMs ?? TURN_DEFAULTS.watchdogMs,
    sweepWindow: options.sweepWindow ?? TURN_DEFAULTS.sweepWindow,
    running,
    handle,
    emit: async (event: Parameters<TurnListener>[0]) => {
      await Promise.all([...turnListeners].map((l) => call(l, event, "turn")));
    },
  };

  return {
    turn(input, fn, turnOptions = {}) {
      const frame = currentFrame();
      if (frame && !frame.state.ended) {
        // Nested: a subagent handed its own inbound message joins the root turn.
        const child: TurnFrame = { ...frame, depth: frame.depth + 1 };
        return frame.state.track(runInFrame(child, async () => fn(handle(frame.state, child))));
      }
      return runRootTurn(runDeps, input, fn, turnOptions);
    },
    onTurn(listener) {
      turnListeners.add(listener);
      return () => turnListeners.delete(listener);
    },
    activity,
    onActivity(listener) {
      activityListeners.add(listener);
      return () => activityListeners.delete(listener);
    },
    subagent,
    ledger: {
      snapshot: ({ conversation, window }) => readSnapshot(deps.store, conversation, window),
      branchEligibility,
      fork: (forkOptions) => forkConversation(deps.store, forkOptions, deps.clock()),
    },
  };
}
