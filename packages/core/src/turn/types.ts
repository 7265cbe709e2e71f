/**
 * Public shapes of turns (DESIGN §7; seed `threaded-activity-log.md`, "Concepts" and "Data
 * model changes"; seed `completed-turn-boundaries.md`).
 *
 * A **turn** is one unit of bot work: an inbound message plus everything the bot does for it,
 * until the handler and all it spawned settle. Its events live in the conversation's ledger:
 * `turn/start`, the transcript nodes (`turn/message`) and `turn/end` — the durable completion
 * fact.
 *
 * @module
 */
import type {
  ChannelMessage,
  MessageAction,
  MessageAttachment,
  MessageBody,
  MessageTarget,
  ReplyPlacement,
} from "../message/message.ts";
import type { MessageReceipt } from "../message/receipt.ts";
import type { SendOptions } from "../send/SendRuntime.ts";

/** Ledger event types written by turns (the receive inbox uses `inbound/*` elsewhere). */
export const TURN_EVENT = {
  start: "turn/start",
  message: "turn/message",
  end: "turn/end",
  forkOrigin: "fork/origin",
} as const;

/**
 * How a turn ended:
 * - `completed`: the handler and everything it spawned settled without an error;
 * - `aborted`: the turn's signal was aborted (the receive lease was lost, `turn.abort()`);
 * - `error`: the handler or spawned work threw;
 * - `interrupted`: the watchdog TTL ran out, or a later turn found it open past its TTL (the
 *   process died mid-turn).
 */
export type TurnOutcome = "completed" | "aborted" | "error" | "interrupted";

/** Role of a transcript node / activity message. */
export type TurnMessageRole = TurnMessage["role"];

/** Fields every {@link TurnMessage} carries; the runtime fills them from the turn scope. */
export type TurnMessageBase = {
  /** Unique id. @defaultValue a random UUID */
  id: string;
  /** Epoch ms. @defaultValue the runtime clock */
  at: number;
  /** The **root** turn id (stamped from the turn scope; an explicit value overrides). */
  turnId?: string;
  /** The subagent that produced it, when inside `runtime.subagent` (stamped from the scope). */
  subagentId?: string;
  /** Channel of the turn (stamped from the turn's root message). */
  channel?: string;
  accountId?: string;
  /** Where the turn's conversation is (stamped from the turn's root message). */
  target?: MessageTarget;
};

/**
 * One transcript node / activity message: what the bot (or a tool, a subagent) did during a
 * turn. The seed's `ChatMessage` roles, platform-neutral:
 * `UserMessage` → `user`, `AgentReplyMessage` → `assistant`, `ToolMessage` → `tool`,
 * `SubagentStatusMessage` → `subagent`, `SystemMessage` → `system`, `PolicyRequestMessage` →
 * `policy-request`, `CommandLogMessage` → `command`, `LegacyLogMessage` → `log`; plus
 * `reasoning` (a model's thinking) and `error` (a turn error), which matter to fork rules.
 */
export type TurnMessage = TurnMessageBase &
  (
    | { role: "user"; text: string; messageId?: string }
    | {
        role: "assistant";
        text: string;
        /** The model was stopped mid-answer; the text is what it had said. */
        interrupted?: boolean;
        messageId?: string;
      }
    | { role: "reasoning"; text: string; interrupted?: boolean }
    | {
        role: "tool";
        /** Tool name, e.g. `Read`. */
        name: string;
        /** The call's input, one line, e.g. `src/app.ts`. */
        input?: string;
        /** The tool result (a result node when present). */
        content?: string;
        isError?: boolean;
      }
    | {
        role: "subagent";
        name: string;
        status: "started" | "done" | "failed";
        /** Run time of a finished subagent, in ms. */
        durationMs?: number;
      }
    | {
        role: "system";
        /** E.g. `subagent_update`, `cron`, `policy_approved`, `policy_rejected`. */
        event: string;
        text: string;
      }
    | {
        role: "policy-request";
        text: string;
        /** The adapter's rich payload (a card); passed on in the outbound message's `raw`. */
        card?: unknown;
      }
    | { role: "command"; command: string; output?: string }
    | { role: "log"; text: string }
    | { role: "error"; text: string }
  );

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A {@link TurnMessage} as producers write it: `id` and `at` optional, the rest stamped. */
export type TurnMessageInput = DistributiveOmit<TurnMessage, "id" | "at"> & {
  id?: string;
  at?: number;
};

/** What subscribers of `runtime.onTurn` get. */
export type TurnLifecycleEvent =
  | {
      type: "started";
      turnId: string;
      conversation: string;
      /** The inbound message the turn hangs off (the turn root). */
      root: ChannelMessage;
      /** Seq of `turn/start` in the conversation ledger. */
      seq: number;
      /** Epoch ms. */
      at: number;
    }
  | {
      type: "ended";
      turnId: string;
      conversation: string;
      root: ChannelMessage;
      outcome: TurnOutcome;
      /** Seq of `turn/end`; absent when it could not be written (the turn stays open in the ledger). */
      seq?: number;
      at: number;
      error?: { name: string; message: string };
    };

/** A `runtime.onTurn` listener. Its promise is awaited (errors are logged, never thrown). */
export type TurnListener = (event: TurnLifecycleEvent) => void | Promise<void>;

/** A `runtime.onActivity` listener: every activity message, after it was recorded. */
export type ActivityListener = (message: TurnMessage) => void | Promise<void>;

/** The inbound side of `runtime.turn`: a message, or the receive context of one. */
export type TurnInput = ChannelMessage | { input: ChannelMessage; signal?: AbortSignal };

/** Options of one `runtime.turn`. */
export type TurnOptions = {
  /** @defaultValue a random UUID */
  turnId?: string;
  /** Ledger conversation. @defaultValue {@link conversationOf}(root) */
  conversation?: string;
  /** Aborts the turn (outcome `aborted`). Merged with the receive context's signal. */
  signal?: AbortSignal;
  /** Overrides the runtime's watchdog TTL for this turn, in ms. */
  watchdogMs?: number;
};

/** Runtime-wide turn settings (`createMessageRuntime({ turns })`). */
export type TurnRuntimeOptions = {
  /**
   * Longest a turn may stay open, in ms. When it runs out the turn ends `interrupted`, its
   * signal aborts and `runtime.turn` rejects with `TurnInterruptedError` (the work goes on
   * but is no longer part of the turn). A later turn in the same conversation closes a turn
   * left open longer than this by a dead process.
   * @defaultValue 600_000 (10 minutes)
   */
  watchdogMs?: number;
  /**
   * How many ledger events before a new `turn/start` are checked for turns left open by a dead
   * process (closed `interrupted` once past `watchdogMs`); `0` switches the sweep off.
   * @defaultValue 200
   */
  sweepWindow?: number;
};

/** Options of `turn.reply`: the send options plus where the reply is shown. */
export type TurnReplyOptions = SendOptions & {
  /**
   * Where the reply is shown ({@link ReplyPlacement}); `thread` / `broadcast` fall back to
   * `inline` when the root has no `threadAnchor`.
   * @defaultValue the channel's default, in the root's own place
   */
  placement?: ReplyPlacement;
  /** Files sent with the reply ([H23]): each its own unit, key and receipt part. */
  attachments?: MessageAttachment[];
  /** Buttons under the reply ([H23]); a text fallback on channels without buttons. */
  actions?: MessageAction[];
};

/**
 * The handle `runtime.turn` gives its callback. Its methods run in the caller's scope when the
 * caller is inside this turn (a subagent keeps its `subagentId`), else at the turn's top level.
 */
export type Turn = {
  /** The root turn id, stamped on every message and activity entry made in this scope. */
  readonly turnId: string;
  readonly conversation: string;
  /** The inbound message the turn hangs off. */
  readonly root: ChannelMessage;
  /** Aborted when the turn is aborted or interrupted. */
  readonly signal: AbortSignal;
  /**
   * Sends the reply to the root's chat (top level, or the user's own thread; `placement`
   * `thread` puts it into the thread under the root), durably, and records it as an
   * `assistant` node.
   * @throws what `runtime.send` throws.
   */
  reply(text: string | MessageBody, options?: TurnReplyOptions): Promise<MessageReceipt>;
  /** Records an activity message (ledger node + activity log). Same as `runtime.activity`. */
  activity(message: TurnMessageInput): Promise<TurnMessage>;
  /**
   * Runs `fn` as detached work of the turn: the turn ends only after it settles, and its
   * error makes the outcome `error`. Returns at once.
   */
  spawn(fn: () => unknown): void;
  /** Same as `runtime.subagent`. */
  subagent<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** Aborts the turn: its signal fires and the outcome becomes `aborted`. */
  abort(reason?: unknown): void;
};

/** Where one ledger read starts and stops (seqs inclusive). */
export type LedgerWindow = {
  /** @defaultValue 1 */
  fromSeq?: number;
  toSeq?: number;
  /** Most events read. @defaultValue 1_000 */
  limit?: number;
};

/** One transcript node of a snapshot: a `turn/message` event. */
export type TranscriptNode = {
  seq: number;
  turnId: string;
  at: number;
  message: TurnMessage;
};

/** A completed turn boundary present in a snapshot's window (the first `turn/end` of a turn). */
export type TurnEndMark = { turnId: string; seq: number; outcome: TurnOutcome; at: number };

/** A `turn/start` present in a snapshot's window. */
export type TurnStartMark = { turnId: string; seq: number; rootMessageId: string; at: number };

/** A window of a conversation's ledger, projected (seed `completed-turn-boundaries.md`). */
export type ConversationSnapshot = {
  conversation: string;
  /** First seq asked for. */
  fromSeq: number;
  /** Last seq read (`fromSeq - 1` when the window is empty). */
  toSeq: number;
  nodes: readonly TranscriptNode[];
  turnStarts: readonly TurnStartMark[];
  /** Completed turn boundaries in the window; a turn without one is open (in this window). */
  turnEnds: readonly TurnEndMark[];
};

/** A message that offers branch / fork: the tail node of a completed turn. */
export type BranchTarget = {
  /** Seq of the node (pass it to `fork({ atSeq })`). */
  seq: number;
  turnId: string;
  /** Seq of the turn's `turn/end`: where the fork cuts. */
  endSeq: number;
};

/** Result of `runtime.ledger.fork`. */
export type ForkResult = {
  /** The new conversation. */
  conversation: string;
  /** The containing `turn/end`: events up to it were considered for the copy. */
  throughSeq: number;
  /** The turn the fork point belongs to. */
  turnId: string;
  /** Events copied (the `fork/origin` header not counted). */
  copied: number;
};

/** Options of `runtime.ledger.fork`. */
export type ForkOptions = {
  conversation: string;
  /** Seq of any event of a completed turn (usually a {@link BranchTarget}'s `seq`). */
  atSeq: number;
  /**
   * The new conversation; must be empty.
   * @defaultValue `${conversation}~fork-<8 random hex>`
   */
  into?: string;
};
