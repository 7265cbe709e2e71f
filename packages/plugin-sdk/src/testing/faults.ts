/**
 * Fault injection for fake platform servers, in platform-neutral terms (DESIGN §9): fail the
 * next N calls with a status, delay them, reset the socket before or after the platform
 * applied the call, answer 429 with a retry-after. A fake renders each fault in its platform's
 * own wire format (see `FakePlatformWire`); tests and the contract suite only speak these terms.
 *
 * @module
 */

/**
 * What a platform call does, as a fake platform names its routes. Faults target an op (or
 * `"any"`). The well-known ones are what the contract suite scripts; a fake may add its own.
 */
export type PlatformOp =
  | "send"
  | "edit"
  | "delete"
  | "typing"
  /** A read used for reconciliation or lookups (find a message by key, list a chat). */
  | "read"
  | (string & {});

/**
 * One scripted fault, consumed by the next call it matches.
 *
 * - `status`: answer `status` without applying the call. `code` / `description` are rendered
 *   into the platform's error body; `body` replaces that body verbatim (say Slack's HTTP 200
 *   `{"ok":false,"error":"ratelimited"}`). A 4xx is `not_dispatched`; a 5xx is ambiguous
 *   (`maybe_sent`) even though nothing was applied.
 * - `rate_limit`: a 429 (or `status`) carrying `retryAfterMs` in the `Retry-After` header (whole
 *   seconds, rounded up), in the platform's error body (its own unit), or both. Not applied.
 * - `reset_before_accept`: the socket is destroyed before the call is applied — nothing is
 *   stored, but the client only sees a reset (`maybe_sent`; reconciliation finds nothing).
 * - `reset_after_accept`: the call is applied (the message is stored and visible), then the
 *   socket is destroyed before the answer — the client sees a reset (`maybe_sent`), C01.
 * - `delay`: the call waits `delayMs` before it is applied and answered normally (a client
 *   timeout shorter than that sees `maybe_sent` while the platform still applies the call).
 * - `repeat_answer`: the call is not applied; it is answered with the last successful answer
 *   of the same op, verbatim — a send answered with the previous message's id (CASES C40: a
 *   caching proxy replaying an earlier answer, a server that reuses a transaction's result).
 *   Applied normally when the op has not answered yet.
 */
export type PlatformFault =
  | {
      kind: "status";
      /** HTTP status, e.g. 400, 403, 404, 500, 503. */
      status: number;
      /** Platform-neutral error code rendered into the body, e.g. `"forbidden"`. */
      code?: string | undefined;
      description?: string | undefined;
      /** Replaces the rendered error body verbatim (JSON). */
      body?: unknown;
      /** Extra response headers. */
      headers?: Record<string, string> | undefined;
    }
  | {
      kind: "rate_limit";
      /** How long the client must wait, in milliseconds. */
      retryAfterMs: number;
      /** Where the wait is announced. @defaultValue "both" */
      via?: "header" | "body" | "both" | undefined;
      /** @defaultValue 429 */
      status?: number | undefined;
    }
  | { kind: "reset_before_accept" }
  | { kind: "reset_after_accept" }
  | {
      kind: "delay";
      /** Milliseconds before the call is applied and answered. */
      delayMs: number;
    }
  | { kind: "repeat_answer" };

/** Where and how often a fault applies. */
export type FaultTarget = {
  /** The op it matches. @defaultValue "any" (every faultable op) */
  op?: PlatformOp | "any";
  /** Consecutive matching calls it applies to. @defaultValue 1 */
  times?: number;
  /**
   * Matching calls to let through before it applies, e.g. `1` to fail the second part of a
   * batch. @defaultValue 0
   */
  skip?: number;
};

type Scripted = { op: PlatformOp | "any"; fault: PlatformFault; skip: number };

/**
 * A queue of scripted faults. The first queued fault whose op matches a call is taken by that
 * call (FIFO), so `failNext(a, { times: 2 }); failNext(b)` gives a, a, b. A fault with `skip`
 * lets that many matching calls through first (and holds back the faults queued after it).
 */
export class FaultQueue {
  readonly #queue: Scripted[] = [];

  /**
   * Scripts `fault` for the next `times` calls of `op`.
   * @throws RangeError when `times` is not a positive integer or `skip` is negative.
   */
  failNext(fault: PlatformFault, target: FaultTarget = {}): this {
    const times = target.times ?? 1;
    const skip = target.skip ?? 0;
    if (!Number.isInteger(times) || times < 1) {
      throw new RangeError(`times must be a positive integer, got ${times}`);
    }
    if (!Number.isInteger(skip) || skip < 0) {
      throw new RangeError(`skip must be a non-negative integer, got ${skip}`);
    }
    for (let i = 0; i < times; i++) {
      this.#queue.push({ op: target.op ?? "any", fault, skip: i === 0 ? skip : 0 });
    }
    return this;
  }

  /** Takes the fault for a call of `op`, if one is scripted and due. */
  take(op: PlatformOp): PlatformFault | undefined {
    const i = this.#queue.findIndex((s) => s.op === "any" || s.op === op);
    const scripted = this.#queue[i];
    if (!scripted) return undefined;
    if (scripted.skip > 0) {
      scripted.skip -= 1;
      return undefined;
    }
    this.#queue.splice(i, 1);
    return scripted.fault;
  }

  /** Faults not consumed yet. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Drops every scripted fault. */
  clear(): void {
    this.#queue.length = 0;
  }
}

/** `Retry-After` header value for a wait in ms: whole seconds, rounded up (RFC 9110 §10.2.3). */
export { formatRetryAfter as retryAfterHeader } from "../channel-message/util/retry-after.ts";
