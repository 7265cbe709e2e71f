/**
 * The ack gate of one delivery: resolves the receiver's {@link ReceiveAckSignal} exactly once, at
 * the point the {@link ReceiveAckPolicy} names (seed, "Receive context": transport / polling
 * offset ack only, never read receipts).
 *
 * @module
 */
import type { ReceiveAckPolicy } from "../message/policy.ts";
import type { ReceiveAckSignal } from "./types.ts";

/** The lifecycle points an ack can happen at. */
export type AckPoint = "recorded" | "replies_durable" | "committed";

/** Resolves one delivery's ack signal once; later calls are ignored. */
export class AckGate {
  readonly promise: Promise<ReceiveAckSignal>;
  #resolve!: (signal: ReceiveAckSignal) => void;
  #settled: ReceiveAckSignal | undefined;
  #policy: ReceiveAckPolicy | undefined;

  constructor() {
    this.promise = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** The signal given so far, if any. */
  get settled(): ReceiveAckSignal | undefined {
    return this.#settled;
  }

  /** True once the platform was told to accept (or the receiver took over under `manual`). */
  get answered(): boolean {
    return this.#settled !== undefined && this.#settled.kind !== "retry";
  }

  /** Fixes the policy once the message is known. `manual` hands the decision to the receiver now. */
  setPolicy(policy: ReceiveAckPolicy): void {
    this.#policy = policy;
    if (policy.kind === "manual") this.#give({ kind: "manual" });
  }

  /** Reports that the lifecycle reached `point`; acks when the policy says this is the moment. */
  reached(point: AckPoint): void {
    const kind = this.#policy?.kind ?? "after-durable-send";
    if (kind === "manual") return;
    const now =
      point === "committed" ||
      (point === "recorded" && (kind === "immediate" || kind === "after-record")) ||
      (point === "replies_durable" && kind === "after-durable-send");
    if (now) this.accept();
  }

  /** Answers success now (drops, duplicates, dead letters, commits). */
  accept(): void {
    this.#give({ kind: "accept" });
  }

  /**
   * Answers `retry` (reason `deadline`) if nothing was answered within `ms` — for platforms
   * that give up on a slow answer (Slack: 3 s). Processing goes on; the redelivery is parked
   * behind it by dedupe and answered once it is done.
   */
  deadline(ms: number): void {
    if (this.#settled || !(ms >= 0)) return;
    const timer = setTimeout(() => this.retry("deadline"), ms);
    timer.unref?.();
    void this.promise.then(() => clearTimeout(timer));
  }

  /** Asks the platform to redeliver, unless it was already answered. */
  retry(
    reason: "in_flight_elsewhere" | "failed" | "store_unavailable" | "deadline",
    retryAfterMs?: number,
  ): void {
    this.#give(
      retryAfterMs === undefined
        ? { kind: "retry", reason }
        : { kind: "retry", reason, retryAfterMs: Math.max(0, Math.ceil(retryAfterMs)) },
    );
  }

  #give(signal: ReceiveAckSignal): void {
    if (this.#settled) return;
    this.#settled = signal;
    this.#resolve(signal);
  }
}

/** Follows another gate: a parked duplicate is answered when the message it waits on is. */
export function followAck(from: AckGate, to: AckGate): void {
  void from.promise.then((signal) => {
    if (signal.kind === "accept") to.accept();
  });
}
