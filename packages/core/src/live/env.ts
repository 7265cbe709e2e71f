/**
 * What live code runs on: the delivery engine's dependencies, the worker (for the durable
 * final), the injectable timers — and a handle on one live intent that saves its record.
 *
 * @module
 */
import type { ChannelMessageAdapter } from "../adapter/types.ts";
import type { DeliveryWorker } from "../delivery/DeliveryWorker.ts";
import type { DeliveryDeps } from "../delivery/deps.ts";
import type { HeraldLogger } from "../logger.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { RateLimitScope } from "../message/rateLimit.ts";
import { isStale, type LiveRecord, previewsReceipt, withDerivedFields } from "./record.ts";
import type { LiveRuntimeOptions, LiveTimers } from "./types.ts";

/** Shared by every live session and recovery pass of one runtime. */
export type LiveEnv = {
  deps: DeliveryDeps;
  worker: DeliveryWorker;
  timers: LiveTimers;
  /** Consecutive preview failures before a session stops updating previews. */
  maxPreviewFailures: number;
  /** Told about every failed reconciliation of an in-doubt preview (metrics). */
  onReconcileError?: LiveRuntimeOptions["onReconcileError"];
};

/** True when the adapter can edit messages (`send.edit` and `capabilities.live.edit`). */
export function canEdit(adapter: ChannelMessageAdapter): boolean {
  return adapter.send.edit !== undefined && adapter.capabilities.live?.edit === true;
}

/** True when the adapter can delete messages (`send.delete` and `capabilities.live.delete`). */
export function canDelete(adapter: ChannelMessageAdapter): boolean {
  return adapter.send.delete !== undefined && adapter.capabilities.live?.delete !== false;
}

/**
 * Rate-limit scopes of a live platform call: the adapter's declared scopes (the same buckets as
 * the delivery worker's, so previews and durable sends share them), plus — for edits and preview
 * sends (`preview`: every update of a preview stream) — the per-chat `capabilities.live.editRate`.
 */
export function scopesFor(
  adapter: ChannelMessageAdapter,
  call: "send" | "edit" | "delete" | "preview",
): RateLimitScope[] {
  const base = adapter.capabilities.rateLimits ?? [];
  if (call !== "edit" && call !== "preview") return base;
  return [...base, ...editRateOnly(adapter)];
}

/**
 * The edit-rate bucket alone (its own bucket, `id: "live.editRate"`): the final's in-place edit
 * takes this token itself, then the worker takes the shared declared ones.
 */
export function editRateOnly(adapter: ChannelMessageAdapter): RateLimitScope[] {
  const editRate = adapter.capabilities.live?.editRate;
  if (!editRate) return [];
  return [
    { scope: "chat", limit: editRate.limit, intervalMs: editRate.intervalMs, id: "live.editRate" },
  ];
}

/** A live intent this process holds the lease of, with its record. */
export class LiveRef {
  readonly env: LiveEnv;
  readonly adapter: ChannelMessageAdapter;
  readonly intentId: string;
  /** Target, relation and origin of the session's messages. */
  readonly base: ChannelMessage;
  readonly log: HeraldLogger;
  readonly turnId: string | undefined;
  record: LiveRecord;

  constructor(p: {
    env: LiveEnv;
    adapter: ChannelMessageAdapter;
    intentId: string;
    base: ChannelMessage;
    record: LiveRecord;
    turnId?: string | undefined;
  }) {
    this.env = p.env;
    this.adapter = p.adapter;
    this.intentId = p.intentId;
    this.base = { ...p.base, body: { markdown: "" } };
    this.record = p.record;
    this.turnId = p.turnId;
    this.log = p.env.deps.logger.child({
      liveIntentId: p.intentId,
      channel: p.base.channel,
      key: p.record.key,
    });
  }

  get now(): number {
    return this.env.deps.clock();
  }

  /** The record with its domain fields refreshed. */
  snapshot(): LiveRecord {
    return withDerivedFields(this.record, this.now, canEdit(this.adapter));
  }

  /** True when the first preview is older than `staleAfterMs`. */
  stale(): boolean {
    return isStale(this.record, this.now);
  }

  /**
   * Saves the record (and the previews as the intent's partial receipt).
   *
   * @throws IntentConflictError when this process no longer holds the lease.
   */
  async save(): Promise<void> {
    const { store, owner } = this.env.deps;
    await store.updateIntent(
      this.intentId,
      { status: "pending", owner },
      { liveState: this.snapshot(), partialReceipt: previewsReceipt(this.record) ?? null },
    );
  }

  /** Gives the lease back so live recovery (any process) finishes the session later. */
  async release(): Promise<void> {
    await this.env.deps.store.releaseLease(this.intentId, this.env.deps.owner).catch(() => false);
  }

  /**
   * Ends the live intent: `pending → cancelled` ("live supersede"), lease released. The
   * record stays on it for operators.
   */
  async close(outcome: NonNullable<LiveRecord["outcome"]>): Promise<void> {
    this.record = { ...this.record, phase: "done", outcome };
    delete this.record.sendingPreview;
    const { store, owner } = this.env.deps;
    await store.transitionIntents([
      {
        id: this.intentId,
        from: "pending",
        to: "cancelled",
        owner,
        patch: { liveState: this.snapshot(), lease: "release" },
      },
    ]);
    this.log.info({ outcome, phase: "done" }, "live session ended");
  }
}
