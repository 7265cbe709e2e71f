/**
 * Typed errors of the receive lifecycle. Each names what was wrong and where; inputs that fail
 * before dedupe go to a dead letter with the error (DESIGN §5).
 *
 * @module
 */
import { HeraldError } from "../errors.ts";

/** One failed check inside an inbound payload. `path` is dot-joined, e.g. `message.chat.id`. */
export type ReceiveValidationIssue = { path: string; message: string };

/** How an issue path reads when the payload itself is wrong (an empty zod path). */
export const ISSUE_ROOT_PATH = "(root)";

/**
 * An inbound payload does not have the shape the channel expects. `path` names the first
 * failing field (`message.chat.id`); `issues` lists all of them.
 */
export class ReceiveValidationError extends HeraldError {
  readonly channel: string;
  readonly path: string;
  readonly issues: readonly ReceiveValidationIssue[];
  constructor(channel: string, issues: readonly ReceiveValidationIssue[]) {
    const first = issues[0] ?? { path: ISSUE_ROOT_PATH, message: "invalid payload" };
    const more = issues.length > 1 ? ` (+${issues.length - 1} more)` : "";
    super(
      "HERALD_RECEIVE_INVALID_PAYLOAD",
      `${channel} payload invalid at ${first.path}: ${first.message}${more}`,
    );
    this.channel = channel;
    this.path = first.path;
    this.issues = issues;
  }
}

/**
 * The adapter's `normalize` or `classify` threw something other than a
 * {@link ReceiveValidationError} (an adapter bug, or a payload it did not expect). The original
 * error is the `cause`.
 */
export class ReceiveNormalizeError extends HeraldError {
  readonly channel: string;
  readonly stage: "normalize" | "classify" | "identity";
  readonly path: string | undefined;
  constructor(
    channel: string,
    stage: "normalize" | "classify" | "identity",
    cause: unknown,
    path?: string,
  ) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      "HERALD_RECEIVE_NORMALIZE_FAILED",
      `${channel} ${stage} failed${path ? ` at ${path}` : ""}: ${why}`,
      { cause },
    );
    this.channel = channel;
    this.stage = stage;
    this.path = path;
  }
}

export { UnknownChannelError } from "../errors.ts";

/** The channel's adapter has no `receive` part. */
export class ReceiveNotSupportedError extends HeraldError {
  readonly channel: string;
  constructor(channel: string) {
    super(
      "HERALD_RECEIVE_NOT_SUPPORTED",
      `channel "${channel}" does not implement receive (its adapter has no receive adapter)`,
    );
    this.channel = channel;
  }
}

/** A message was accepted for dispatch but no handler is registered. The lease is released. */
export class ReceiveHandlerMissingError extends HeraldError {
  constructor() {
    super(
      "HERALD_RECEIVE_NO_HANDLER",
      "no message handler registered: pass options.handler or call runtime.onMessage(handler)",
    );
  }
}

/** The bot's handler threw while processing an inbound message (the error is the `cause`). */
export class ReceiveHandlerError extends HeraldError {
  readonly channel: string;
  readonly eventId: string;
  constructor(channel: string, eventId: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super("HERALD_RECEIVE_HANDLER_FAILED", `handler failed for ${channel} ${eventId}: ${why}`, {
      cause,
    });
    this.channel = channel;
    this.eventId = eventId;
  }
}

/**
 * A recorded inbound message failed `maxAttempts` times during recovery; it is moved to a dead
 * letter (raw kept) and no longer retried automatically.
 */
export class ReceiveAttemptsExhaustedError extends HeraldError {
  readonly channel: string;
  readonly eventId: string;
  readonly attempts: number;
  constructor(channel: string, eventId: string, attempts: number, lastError: string | undefined) {
    super(
      "HERALD_RECEIVE_ATTEMPTS_EXHAUSTED",
      `${channel} ${eventId} failed ${attempts} times${lastError ? `; last error: ${lastError}` : ""}; replay it from the dead letters once fixed`,
    );
    this.channel = channel;
    this.eventId = eventId;
    this.attempts = attempts;
  }
}

/** Dead letters: the letter does not exist or was discarded. */
export class DeadLetterNotFoundError extends HeraldError {
  readonly id: string;
  constructor(id: string, why = "does not exist") {
    super("HERALD_DEAD_LETTER_NOT_FOUND", `dead letter ${id} ${why}`);
    this.id = id;
  }
}

/**
 * A recorded inbound message could not be restored from the inbox (a payload that could not be
 * stored as JSON — a BigInt, a cycle, a 10,000-deep field — or a damaged record). Recovery moves
 * it to a dead letter with its raw text (replayable) and recovers every other record.
 */
export class ReceiveRecordUnreadableError extends HeraldError {
  readonly channel: string;
  /** The record's ledger seq in `herald.inbox/<channel>`. */
  readonly seq: number;
  constructor(channel: string, seq: number, problem: string) {
    super(
      "HERALD_RECEIVE_RECORD_UNREADABLE",
      `recorded inbound message ${seq} of ${channel} cannot be restored: ${problem}; it was moved to a dead letter with its raw payload`,
    );
    this.channel = channel;
    this.seq = seq;
  }
}
