/**
 * A live session (seed "Live context"; DESIGN §6): `update` as text arrives, then `finalize`
 * or `cancel`. Created by `runtime.live(target, options)`.
 *
 * @module
 */

import { replyingInTurn } from "../context/replies.ts";
import {
  DeliveryCancelledError,
  DeliveryFailedError,
  DeliveryPendingError,
} from "../delivery/errors.ts";
import { FailpointError, failpoint } from "../failpoint.ts";
import type { DurableSendIntent } from "../message/intent.ts";
import type { LiveMessageState } from "../message/live.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { MessageReceipt } from "../message/receipt.ts";
import { IntentConflictError } from "../state/errors.ts";
import { completeAfterFinal, endWithoutFinal } from "./cleanup.ts";
import type { LiveRef } from "./env.ts";
import { LiveSessionEndedError } from "./errors.ts";
import { finalizeNative, finalizeOverPreviews, sendFreshFinal } from "./finish.ts";
import { resolveInDoubtPreview } from "./inDoubt.ts";
import { nativeStep } from "./native.ts";
import { type Feed, previewStep, type StepResult } from "./previews.ts";
import { visiblePreviews } from "./record.ts";
import { unref } from "./timers.ts";
import type { LiveCancelReason, LiveFinal, LiveMode, LiveUpdate } from "./types.ts";
import type { TypingIndicator } from "./typing.ts";

const EMPTY_RECEIPT = (sentAt: number): MessageReceipt => ({
  platformMessageIds: [],
  parts: [],
  sentAt,
});

/**
 * One live message. Updates are coalesced (the newest wins, one platform call in flight) and
 * throttled to the channel's edit rate; unchanged renders are never sent. `finalize` delivers
 * the final durably — in place over the previews when allowed, else fresh, deleting the
 * previews only after the fresh final was accepted.
 *
 * @example
 * const live = await runtime.live({ channel: "telegram", target }, { idempotencyKey: `reply:${inboundId}` });
 * for await (const text of answerSoFar()) live.update(text);
 * const receipt = await live.finalize();
 */
export class LiveSession {
  /** The mode in effect (`native` falls back to `partial` when the channel cannot stream). */
  readonly mode: LiveMode;
  /** The final's idempotency key. */
  readonly idempotencyKey: string;
  readonly #ref: LiveRef | undefined;
  readonly #existingFinal: DurableSendIntent | undefined;
  readonly #waitFor:
    | ((intentId: string, timeoutMs: number) => Promise<DurableSendIntent | undefined>)
    | undefined;
  readonly #waitMs: number;
  readonly #clock: () => number;
  readonly #typing: TypingIndicator | undefined;
  readonly #feed: Feed = { text: "", progress: "", version: 0, failures: 0 };
  #inFlight: Promise<void> | undefined;
  #timer: unknown;
  #renewTimer: unknown;
  #open = true;
  #lost = false;
  #finalized: Promise<MessageReceipt> | undefined;
  #cancelled: Promise<void> | undefined;

  /** @internal Use `runtime.live(...)`. */
  constructor(p: {
    mode: LiveMode;
    idempotencyKey: string;
    waitMs: number;
    ref?: LiveRef;
    existingFinal?: DurableSendIntent;
    waitFor?: (intentId: string, timeoutMs: number) => Promise<DurableSendIntent | undefined>;
    typing?: TypingIndicator | undefined;
    /** Epoch-ms clock. @defaultValue the ref's clock, else Date.now */
    clock?: () => number;
  }) {
    this.#clock = p.clock ?? p.ref?.env.deps.clock ?? Date.now;
    this.mode = p.mode;
    this.idempotencyKey = p.idempotencyKey;
    this.#waitMs = p.waitMs;
    this.#ref = p.ref;
    this.#existingFinal = p.existingFinal;
    this.#waitFor = p.waitFor;
    this.#typing = p.typing;
    if (this.#ref) this.#scheduleRenewal(this.#ref);
    else this.#open = false;
  }

  /**
   * True when the session was opened for a key whose final already exists (a re-run): updates
   * are ignored and `finalize` returns that final's receipt.
   */
  get replayed(): boolean {
    return this.#existingFinal !== undefined;
  }

  /** The live state as saved on the live intent (previews, hashes, in-place eligibility). */
  get state(): LiveMessageState {
    const ref = this.#ref;
    if (!ref) return { mode: this.mode, canFinalizeInPlace: false };
    return structuredClone(ref.snapshot());
  }

  /**
   * Shows newer text (or a progress line). Returns at once; the platform is called in the
   * background, at most at the channel's edit rate, with the newest text only.
   *
   * @throws LiveSessionEndedError after `finalize` or `cancel` (ignored on a replayed session).
   */
  update(update: LiveUpdate): void {
    if (this.replayed) return;
    if (!this.#open) {
      throw new LiveSessionEndedError(
        this.idempotencyKey,
        this.#cancelled ? "cancelled" : "finalized",
      );
    }
    const u = typeof update === "string" ? { text: update } : update;
    if (u.text !== undefined) this.#feed.text = u.text;
    if (u.progress !== undefined) this.#feed.progress = u.progress;
    this.#feed.version += 1;
    this.#pump();
  }

  /** Resolves when no preview call is in flight (a throttled update may still be scheduled). */
  async idle(): Promise<void> {
    while (this.#inFlight) await this.#inFlight;
  }

  /**
   * Delivers the final message durably and returns its receipt; calling it again returns the
   * same promise. An empty final (no text, no attachments) is a silent end: previews are
   * deleted and an empty receipt is returned.
   *
   * @param final - the final text and attachments. @defaultValue the last `text` update
   * @throws DeliveryFailedError when the final failed terminally (previews follow `onCancel`).
   * @throws DeliveryPendingError when it is still queued after `waitMs` (it will be delivered;
   *   recovery then deletes the previews).
   * @throws DeliveryCancelledError when an operator cancelled it.
   * @throws LiveSessionEndedError after `cancel`.
   */
  finalize(final?: LiveFinal): Promise<MessageReceipt> {
    if (this.#cancelled) {
      return Promise.reject(new LiveSessionEndedError(this.idempotencyKey, "cancelled"));
    }
    this.#finalized ??= this.#finalize(final);
    return this.#finalized;
  }

  /**
   * Ends the session without a final. Previews follow the `onCancel` policy (`silent` always
   * deletes them). No-op after `finalize`; idempotent.
   */
  cancel(reason: LiveCancelReason = "aborted"): Promise<void> {
    if (this.#finalized) return Promise.resolve();
    this.#cancelled ??= this.#cancel(reason);
    return this.#cancelled;
  }

  /** `await using live = await runtime.live(...)`: cancels (`aborted`) unless finalized. */
  async [Symbol.asyncDispose](): Promise<void> {
    if (!this.#finalized) await this.cancel("aborted");
  }

  // ── streaming ──────────────────────────────────────────────────────────────

  #pump(): void {
    const ref = this.#ref;
    if (!ref || !this.#open || this.#inFlight || this.#timer !== undefined) return;
    if (this.#feed.degraded) return;
    this.#inFlight = this.#step(ref)
      .then((r) => {
        if (r.next === "wait") this.#wake(r.ms);
        return r.next === "again";
      })
      .catch((error: unknown) => {
        this.#onError(ref, error);
        return false;
      })
      .then((again) => {
        this.#inFlight = undefined;
        if (again) this.#pump();
      });
  }

  #step(ref: LiveRef): Promise<StepResult> {
    return this.mode === "native"
      ? nativeStep(ref, this.#feed)
      : previewStep(ref, this.#feed, this.mode);
  }

  #wake(ms: number): void {
    const { timers } = this.#ref?.env ?? {};
    if (!timers) return;
    this.#timer = timers.setTimeout(() => {
      this.#timer = undefined;
      this.#pump();
    }, ms);
  }

  #onError(ref: LiveRef, error: unknown): void {
    if (error instanceof IntentConflictError) this.#lost = true;
    this.#feed.degraded = `live intent unavailable: ${error instanceof Error ? error.message : String(error)}`;
    ref.log.error({ err: error }, "live session lost its intent; previews stopped");
  }

  #scheduleRenewal(ref: LiveRef): void {
    const { deps, timers } = ref.env;
    const every = Math.max(10, Math.floor(deps.options.leaseMs / 3));
    const tick = () => {
      this.#renewTimer = unref(
        timers.setTimeout(() => {
          deps.store
            .renewLease(ref.intentId, deps.owner, deps.clock() + deps.options.leaseMs)
            .then((held) => {
              if (!held) this.#lost = true;
              else if (this.#renewTimer !== undefined) tick();
            })
            .catch(() => {});
        }, every),
      );
    };
    tick();
  }

  /**
   * Stops the stream at once (no new preview call starts) and returns a promise that resolves
   * once the call in flight, if any, settled and typing was halted.
   */
  #stopStreaming(ref: LiveRef | undefined): Promise<void> {
    this.#open = false;
    if (this.#timer !== undefined) ref?.env.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    // No typing call may land after the final: abort the one in flight and let it settle
    // (bounded by the indicator's stop grace; the platform's hide runs in the background).
    const halted = this.#typing?.halt();
    return (async () => {
      await this.idle();
      await halted;
    })();
  }

  /** A sleep on the session's timers (waits that happen after the final is durable). */
  #sleep(ref: LiveRef): (ms: number) => Promise<void> {
    return (ms) => new Promise<void>((resolve) => ref.env.timers.setTimeout(resolve, ms));
  }

  #end(ref: LiveRef | undefined): void {
    if (this.#renewTimer !== undefined) ref?.env.timers.clearTimeout(this.#renewTimer);
    this.#renewTimer = undefined;
    void this.#typing?.stop();
  }

  // ── ending ─────────────────────────────────────────────────────────────────

  async #finalize(final: LiveFinal | undefined): Promise<MessageReceipt> {
    const ref = this.#ref;
    // The final's intent is written before anything waits for a preview call in flight (DESIGN
    // §3 "Waiting is durable"): that wait runs between enqueue and delivery (`beforeDeliver`).
    const stopped = this.#stopStreaming(ref);
    // Blocks are messages of their own: the final sends only the blocks not yet shown, so its
    // plan waits for a block call in flight to land (partial and native plan at once).
    if (this.mode === "block") await stopped;
    const inFlight = this.#inFlight !== undefined;
    // The final is a reply: the turn's typing in this chat stops before it is delivered too.
    const beforeDeliver = async (): Promise<undefined> => {
      await Promise.all([stopped, ref ? replyingInTurn(ref.base) : undefined]);
      return undefined;
    };
    try {
      if (!ref) {
        await stopped;
        return await this.#replayFinal();
      }
      const f = typeof final === "string" ? { text: final } : (final ?? {});
      const text = f.text ?? this.#feed.text;
      const attachments = f.attachments ?? [];
      if (text.trim() === "" && attachments.length === 0) {
        await stopped;
        await this.#cancelWith(ref, "silent");
        return EMPTY_RECEIPT(ref.now);
      }
      const message: ChannelMessage = {
        ...ref.base,
        body: { markdown: text },
        ...(attachments.length > 0 ? { attachments } : {}),
      };
      const how = {
        ref,
        mode: this.mode,
        key: this.idempotencyKey,
        waitMs: this.#waitMs,
        beforeDeliver,
        previewInFlight: inFlight,
      };
      if (this.#lost) return await sendFreshFinal(how, message, this.idempotencyKey, false);
      try {
        if (inFlight) {
          // What a preview shows once the call in flight lands is unknown: none is "kept".
          for (const p of visiblePreviews(ref.record)) p.hash = "";
        } else {
          await resolveInDoubtPreview(ref); // never waits: cleanup settles it after the final
        }
        const hasMedia = attachments.length > 0;
        const receipt =
          this.mode === "native"
            ? await finalizeNative(how, message, text, hasMedia, this.#feed)
            : await finalizeOverPreviews(how, message, text, hasMedia);
        failpoint("live.after_final_accept");
        await stopped;
        await this.#cleanUp(ref, receipt);
        return receipt;
      } catch (error) {
        await stopped;
        await this.#afterFinalError(ref, error);
        throw error;
      }
    } finally {
      await stopped;
      this.#end(ref);
    }
  }

  /** After the final was accepted, cleanup problems never fail `finalize`: recovery finishes it. */
  async #cleanUp(ref: LiveRef, receipt: MessageReceipt): Promise<void> {
    try {
      if (!(await completeAfterFinal(ref, receipt, this.#sleep(ref)))) {
        ref.log.warn({}, "final delivered; some previews are left for recovery to delete");
      }
    } catch (error) {
      if (error instanceof FailpointError) throw error;
      ref.log.warn({ err: error }, "final delivered; recovery will delete the previews");
    }
  }

  async #afterFinalError(ref: LiveRef, error: unknown): Promise<void> {
    if (error instanceof DeliveryPendingError) {
      await ref.release(); // the final stays queued; recovery deletes the previews once it lands
      return;
    }
    if (error instanceof DeliveryFailedError || error instanceof DeliveryCancelledError) {
      ref.record = { ...ref.record, phase: "cancelling" };
      await endWithoutFinal(ref, ref.record.onCancel, undefined, "error").catch((e: unknown) => {
        ref.log.error({ err: e }, "could not clean previews up after a failed final");
      });
    }
    // Anything else (store down): the lease lapses and recovery finishes the session.
  }

  async #replayFinal(): Promise<MessageReceipt> {
    let existing = this.#existingFinal;
    if (!existing) throw new LiveSessionEndedError(this.idempotencyKey, "ended");
    const clock = this.#clock;
    const waitStarted = clock();
    if (existing.status !== "sent" && this.#waitFor) {
      existing = (await this.#waitFor(existing.id, this.#waitMs)) ?? existing;
    }
    if (existing.status === "sent") return existing.receipt ?? EMPTY_RECEIPT(existing.updatedAt);
    if (existing.status === "failed") throw new DeliveryFailedError(existing.failure, existing.id);
    if (existing.status === "cancelled") throw new DeliveryCancelledError(existing.id);
    throw new DeliveryPendingError(existing, clock() - waitStarted);
  }

  async #cancel(reason: LiveCancelReason): Promise<void> {
    const ref = this.#ref;
    await this.#stopStreaming(ref);
    try {
      if (ref && !this.#lost) await this.#cancelWith(ref, reason);
    } finally {
      this.#end(ref);
    }
  }

  async #cancelWith(ref: LiveRef, reason: LiveCancelReason): Promise<void> {
    const policy = reason === "silent" ? "delete" : ref.record.onCancel;
    ref.record = { ...ref.record, phase: "cancelling", onCancel: policy };
    await ref.save();
    const outcome = await endWithoutFinal(ref, policy, this.#sleep(ref), reason);
    ref.log.info({ reason, outcome }, "live session cancelled");
  }
}
