/**
 * The durable receive runtime (DESIGN §5; seed `message-lifecycle.md`, "Receive context"):
 * dedupe lease → preflight → record → dispatch → commit → ack, after {@link intake}.
 *
 * Correctness across processes rests on the store only: the dedupe lease (`in_flight` →
 * `done`, released on failure) and the inbound record. The in-process registry of held
 * messages and the loop guard are optimizations and cost bounds (DESIGN §11).
 *
 * @module
 */

import { randomUUID } from "node:crypto";
import { asError, describeError } from "../context/errorInfo.ts";
import { failpoint } from "../failpoint.ts";
import { type HeraldLogger, silentLogger } from "../logger.ts";
import { firstReplyKeys } from "../message/keys.ts";
import type { ReceiveAckPolicy } from "../message/policy.ts";
import { StoreUnavailableError } from "../state/errors.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import { AckGate } from "./ack.ts";
import { mergeEventClass } from "./classify.ts";
import { DedupeLeases } from "./DedupeLeases.ts";
import { type DispatchDeps, dispatchRecorded } from "./dispatch.ts";
import { DeadLetterNotFoundError } from "./errors.ts";
import { type EventDeps, processEvent, processInteraction } from "./events.ts";
import { appendRecord } from "./inbox.ts";
import { type InFlightEntry, InFlightRegistry, RecentEventClasses } from "./inflight.ts";
import { type AcceptedInput, deadLetterError, intake } from "./intake.ts";
import { jsonSafe } from "./json.ts";
import { LoopGuard } from "./LoopGuard.ts";
import { InboundPolicies, type InboundPolicyOverride } from "./policy.ts";
import { type PreflightPolicy, preflight } from "./preflight.ts";
import { recoverInbox } from "./recover.ts";
import { InboundRetries } from "./retries.ts";
import type {
  ReceiveActionHandler,
  ReceiveDeadLetters,
  ReceiveEventHandler,
  ReceiveHandler,
  ReceiveOutcome,
  ReceiveReactionHandler,
  ReceiveRecoverReport,
  ReceiveRuntime,
  ReceiveRuntimeDeps,
  ReceiveRuntimeOptions,
  ReceiveSource,
  ReceiveTicket,
} from "./types.ts";

const DEFAULT_ACK: ReceiveAckPolicy = { kind: "after-durable-send" };

/**
 * Creates the receive runtime.
 *
 * @param deps - store, adapters, logger, clock.
 * @param options - handler and policies; every default is documented on
 * {@link ReceiveRuntimeOptions}.
 * @example
 * const receiver = createReceiveRuntime(
 *   { store, adapters: new Map([["telegram", telegramAdapter]]) },
 *   { handler: async (ctx) => { await reply(ctx.input); ctx.repliesDurable(); } },
 * );
 * const { ack, done } = receiver.receive(update, { channel: "telegram", accountId: "main" });
 * res.statusCode = (await ack).kind === "retry" ? 503 : 200;
 */
export function createReceiveRuntime(
  deps: ReceiveRuntimeDeps,
  options: ReceiveRuntimeOptions = {},
): ReceiveRuntime {
  return new DurableReceiveRuntime(deps, options);
}

class DurableReceiveRuntime implements ReceiveRuntime {
  readonly instanceId: string;
  readonly deadLetters: ReceiveDeadLetters;
  readonly #deps: ReceiveRuntimeDeps;
  readonly #echoSettleMs: number;
  readonly #store: MessageStateStore;
  readonly #clock: () => number;
  readonly #log: HeraldLogger;
  readonly #leases: DedupeLeases;
  readonly #dispatchDeps: DispatchDeps;
  readonly #maxAttempts: number;
  readonly #ackPolicy: ReceiveAckPolicy;
  readonly #policies: InboundPolicies;
  readonly #loopGuard: LoopGuard | undefined;
  readonly #inflight = new InFlightRegistry();
  readonly #recent = new RecentEventClasses();
  readonly #running = new Set<Promise<unknown>>();
  readonly #eventDeps: EventDeps;
  readonly #retries: InboundRetries;
  /** Failed outcomes of deliveries whose handler had not run (recorded or not): retried. */
  readonly #beforeHandler = new WeakSet<ReceiveOutcome>();
  #handler: ReceiveHandler | undefined;
  #eventHandler: ReceiveEventHandler | undefined;
  #reactionHandler: ReceiveReactionHandler | undefined;
  #actionHandler: ReceiveActionHandler | undefined;

  constructor(deps: ReceiveRuntimeDeps, options: ReceiveRuntimeOptions) {
    this.#deps = deps;
    this.#store = deps.store;
    this.#clock = deps.clock ?? Date.now;
    this.#log = (deps.logger ?? silentLogger).child({ lifecycle: "receive" });
    this.#handler = options.handler;
    this.#eventHandler = options.eventHandler;
    this.#maxAttempts = options.maxAttempts ?? 5;
    this.#echoSettleMs = options.echoSettleMs ?? 1_000;
    this.#ackPolicy = options.ackPolicy ?? DEFAULT_ACK;
    this.instanceId = options.instanceId ?? `receive-${randomUUID()}`;
    this.#leases = new DedupeLeases({
      store: this.#store,
      owner: this.instanceId,
      clock: this.#clock,
      leaseMs: options.leaseMs ?? 30_000,
      ttlMs: options.dedupeTtlMs,
      log: this.#log,
    });
    this.#dispatchDeps = {
      store: this.#store,
      leases: this.#leases,
      clock: this.#clock,
      log: this.#log,
      handler: () => this.#handler,
      replied: async (message) => {
        for (const key of firstReplyKeys(message))
          if (await this.#store.getIntentByIdempotencyKey(key)) return true;
        return false;
      },
      track: (work) => void this.#track(work),
    };
    this.#eventDeps = {
      leases: this.#leases,
      log: this.#log,
      clock: this.#clock,
      handler: () => this.#eventHandler,
      reactionHandler: () => this.#reactionHandler,
      actionHandler: () => this.#actionHandler,
    };
    this.#policies = new InboundPolicies(options, options.policies);
    this.#loopGuard =
      options.loopGuard === false
        ? undefined
        : new LoopGuard(options.loopGuard, this.#store.sharedLimits);
    this.#retries = new InboundRetries(
      {
        run: (raw, source) => {
          const ack = new AckGate();
          return this.#track(this.#settle(ack, this.#receive(raw, source, ack, undefined)));
        },
        beforeHandler: (outcome) => this.#beforeHandler.has(outcome),
        clock: this.#clock,
        log: this.#log,
      },
      options.retry,
    );
    this.deadLetters = {
      list: (query = {}) => this.#store.listDeadLetters({ status: "new", ...query }),
      replay: (id) => this.#replay(id),
      discard: async (id) => {
        if (!(await this.#store.getDeadLetter(id))) throw new DeadLetterNotFoundError(id);
        await this.#store.markDeadLetter(id, "discarded", this.#clock());
      },
    };
  }

  setPolicy(override: InboundPolicyOverride): void {
    this.#policies.set(override);
  }

  onMessage(handler: ReceiveHandler): void {
    this.#handler = handler;
  }

  onEvent(handler: ReceiveEventHandler): void {
    this.#eventHandler = handler;
  }

  onReaction(handler: ReceiveReactionHandler): void {
    this.#reactionHandler = handler;
  }

  onAction(handler: ReceiveActionHandler): void {
    this.#actionHandler = handler;
  }

  receive(raw: unknown, source: ReceiveSource): ReceiveTicket {
    if (typeof source?.channel !== "string" || source.channel.length === 0)
      throw new TypeError("receive(raw, source): source.channel must be a non-empty string");
    const ack = new AckGate();
    if (source.ackDeadlineMs !== undefined) ack.deadline(source.ackDeadlineMs);
    const done = this.#track(
      this.#settle(ack, this.#receive(raw, source, ack, undefined)).then((outcome) => {
        this.#retries.consider(raw, source, outcome);
        return outcome;
      }),
    );
    return { ack: ack.promise, done };
  }

  pendingRetries() {
    return this.#retries.list();
  }

  stopRetries(): void {
    this.#retries.stop();
  }

  async recover(options: { channels?: readonly string[] } = {}): Promise<ReceiveRecoverReport> {
    const adapters = this.#deps.adapters;
    const channels =
      options.channels ?? (typeof adapters === "function" ? [] : [...adapters.keys()]);
    return this.#track(
      recoverInbox(channels, {
        store: this.#store,
        clock: this.#clock,
        log: this.#log,
        maxAttempts: this.#maxAttempts,
        inflight: this.#inflight,
        leases: this.#leases,
        dispatch: (entry, job) => dispatchRecorded(entry, job, this.#dispatchDeps),
      }),
    );
  }

  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  // ── the lifecycle ───────────────────────────────────────────────────────────

  async #receive(
    raw: unknown,
    source: ReceiveSource,
    ack: AckGate,
    replayOf: string | undefined,
  ): Promise<ReceiveOutcome> {
    const receivedAt = source.receivedAt ?? this.#clock();
    const input = await intake(raw, source, this.#deps.adapters, this.#store, receivedAt, {
      echoSettleMs: this.#echoSettleMs,
    });
    if (input.kind === "invalid") {
      if (replayOf !== undefined)
        return { status: "dead_lettered", error: input.error, deadLetterId: replayOf };
      const letter = await this.#store.putDeadLetter({
        channel: source.channel,
        ...(source.accountId === undefined ? {} : { accountId: source.accountId }),
        raw: jsonSafe(raw),
        error: deadLetterError(input.error),
        receivedAt,
      });
      this.#log.warn(
        { channel: source.channel, deadLetterId: letter.id, error: letter.error },
        "inbound payload dead-lettered",
      );
      return { status: "dead_lettered", error: input.error, deadLetterId: letter.id };
    }
    if (input.kind === "dropped") {
      this.#log.debug({ channel: source.channel, reason: input.reason }, "own echo dropped");
      return { status: "dropped", reason: input.reason, message: input.message };
    }
    if (input.kind === "ignored") {
      this.#log.info(
        {
          channel: source.channel,
          accountId: source.accountId,
          reason: input.reason,
          detail: input.detail,
        },
        "inbound event ignored by the adapter",
      );
      return {
        status: "ignored",
        reason: input.reason,
        ...(input.detail === undefined ? {} : { detail: input.detail }),
      };
    }
    if (input.kind === "event" || input.kind === "interaction") {
      try {
        return input.kind === "event"
          ? await processEvent(input, source.ackPolicy, ack, this.#eventDeps)
          : await processInteraction(input, source.ackPolicy, ack, this.#eventDeps);
      } catch (error) {
        // Thrown before the event's handler ran (the lease could not be taken): retried. A
        // failing handler is an answer of `processEvent`, not a throw (redelivery decides).
        const failed: ReceiveOutcome = {
          status: "failed",
          error: asError(error),
          acked: ack.answered,
          recorded: false,
        };
        this.#beforeHandler.add(failed);
        return failed;
      }
    }
    return this.#admit(input, source, ack);
  }

  /** Dedupe: park on a message this process holds, else take the store's lease. */
  async #admit(input: AcceptedInput, source: ReceiveSource, ack: AckGate): Promise<ReceiveOutcome> {
    const event = { ...input.event };
    const seen = this.#recent.get(input.key);
    if (seen) {
      mergeEventClass(event, seen);
      event.eventTypes = [...new Set([...seen.eventTypes, ...event.eventTypes])];
    }
    for (;;) {
      const held = this.#inflight.get(input.key);
      if (!held) {
        const entry = this.#inflight.register(input.key, event, ack);
        return this.#hold(entry, input, source, ack);
      }
      mergeEventClass(held.event, event);
      void held.ack.promise.then((signal) => {
        if (signal.kind === "accept" && held.recordSeq !== undefined) ack.accept();
      });
      if ((await held.ended) === "done") return { status: "duplicate", key: input.key };
      Object.assign(event, held.event); // take over with the merged flags
    }
  }

  /** Lease held (or being acquired) by this process: preflight → record → dispatch. */
  async #hold(
    entry: InFlightEntry,
    input: AcceptedInput,
    source: ReceiveSource,
    ack: AckGate,
  ): Promise<ReceiveOutcome> {
    const { key, message, adapter } = input;
    let leased = false;
    try {
      const got = await this.#leases.acquire(key);
      if (got.status === "in_flight") {
        entry.end("released");
        return {
          status: "busy",
          key,
          retryAfterMs: Math.max(0, got.leaseExpiresAt - this.#clock()),
        };
      }
      if (got.status === "done") {
        entry.end("done");
        return { status: "duplicate", key };
      }
      leased = true;
      failpoint("receive.after_dedupe");

      const inbound: PreflightPolicy = {
        ...this.#policies.resolve(message.channel, message.accountId),
        loopGuard: this.#loopGuard,
      };
      const verdict = await preflight(message, entry.event, adapter, inbound, this.#clock());
      if (verdict.action === "drop") {
        if (verdict.reason === "mention_required") {
          // Another event type of this message may carry the mention: let it win.
          leased = false;
          await this.#leases.release(key);
          this.#recent.remember(key, entry.event);
          entry.end("released");
        } else {
          await this.#leases.complete(key, { outcome: "dropped", reason: verdict.reason });
          leased = false;
          entry.end("done");
        }
        this.#log.debug(
          { key, reason: verdict.reason, detail: verdict.detail },
          "dropped by preflight",
        );
        return {
          status: "dropped",
          reason: verdict.reason,
          ...(verdict.detail === undefined ? {} : { detail: verdict.detail }),
          key,
          message,
        };
      }

      const policy =
        source.ackPolicy ?? adapter.ackPolicy?.(message, entry.event) ?? this.#ackPolicy;
      ack.setPolicy(policy);
      const now = this.#clock();
      const raw = input.raw;
      entry.recordSeq = await appendRecord(
        this.#store,
        { key, message, event: entry.event, ackPolicy: policy, raw, receivedAt: now },
        now,
      );
      failpoint("receive.after_record");
      ack.reached("recorded");
      leased = false; // the dispatch owns the lease from here
      return await dispatchRecorded(
        entry,
        {
          message,
          key,
          policy,
          seq: entry.recordSeq,
          attempt: 1,
          recovered: false,
        },
        this.#dispatchDeps,
      );
    } catch (error) {
      if (leased) await this.#leases.release(key);
      entry.end("released");
      this.#log.error({ key, error: describeError(error) }, "receive failed before dispatch");
      const failed: ReceiveOutcome = {
        status: "failed",
        error: asError(error),
        key,
        acked: ack.answered,
        recorded: entry.recordSeq !== undefined,
      };
      this.#beforeHandler.add(failed);
      return failed;
    }
  }

  // ── plumbing ────────────────────────────────────────────────────────────────

  async #replay(id: string): Promise<ReceiveOutcome> {
    const letter = await this.#store.getDeadLetter(id);
    if (!letter) throw new DeadLetterNotFoundError(id);
    if (letter.status === "discarded") throw new DeadLetterNotFoundError(id, "was discarded");
    const ack = new AckGate();
    const source: ReceiveSource = {
      channel: letter.channel,
      ...(letter.accountId === undefined ? {} : { accountId: letter.accountId }),
    };
    const outcome = await this.#track(
      this.#settle(ack, this.#receive(letter.raw, source, ack, id)),
    );
    const lost = outcome.status === "failed" && !outcome.recorded;
    if (outcome.status !== "dead_lettered" && !lost)
      await this.#store.markDeadLetter(id, "replayed", this.#clock());
    return outcome;
  }

  /** Turns unexpected rejections into `failed` and gives every delivery an ack. */
  async #settle(ack: AckGate, run: Promise<ReceiveOutcome>): Promise<ReceiveOutcome> {
    let outcome: ReceiveOutcome;
    try {
      outcome = await run;
    } catch (error) {
      // Intake or a dead letter's write threw: nothing ran the handler (retried).
      this.#log.error({ error: describeError(error) }, "receive failed");
      outcome = { status: "failed", error: asError(error), acked: ack.answered, recorded: false };
      this.#beforeHandler.add(outcome);
    }
    if (outcome.status === "busy") ack.retry("in_flight_elsewhere", outcome.retryAfterMs);
    else if (outcome.status === "failed")
      ack.retry(outcome.error instanceof StoreUnavailableError ? "store_unavailable" : "failed");
    else ack.accept();
    return outcome;
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    this.#running.add(promise);
    void promise.finally(() => this.#running.delete(promise)).catch(() => {});
    return promise;
  }
}
