/**
 * The live half of the message runtime: `runtime.live(target, options)` opens a session over a
 * held **live intent**, `runtime.typing(target)` shows a typing indicator, and live recovery runs
 * at start and periodically.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import type { ChannelMessageAdapter, MessageSendContext } from "../adapter/types.ts";
import { conversationOf, watchForReply } from "../context/replies.ts";
import { currentTurnId, trackInTurn, turnOwner } from "../context/scope.ts";
import type { DeliveryWorker } from "../delivery/DeliveryWorker.ts";
import type { DeliveryDeps } from "../delivery/deps.ts";
import { NotImplementedError } from "../errors.ts";
import { defaultLiveKey } from "../message/keys.ts";
import type { ChannelMessage } from "../message/message.ts";
import { assertSamePlace } from "../send/conflict.ts";
import { type LiveEnv, LiveRef } from "./env.ts";
import { LiveSessionBusyError } from "./errors.ts";
import { findFinal } from "./final.ts";
import { LiveSession } from "./LiveSession.ts";
import { resolveLiveMode } from "./mode.ts";
import { LIVE_RECORD_TAG, type LiveRecord, liveIntentKey, liveOrderingKey } from "./record.ts";
import { leaseGone, recoverLive, recoverLiveIntent } from "./recovery.ts";
import { nodeTimers } from "./timers.ts";
import type {
  LiveOptions,
  LiveRecoveryReport,
  LiveRuntimeOptions,
  LiveTarget,
  TypingHandle,
  TypingOptions,
} from "./types.ts";
import { TypingIndicator } from "./typing.ts";

/** The live methods the runtime exposes, plus its start/stop hooks. */
export type LiveApi = {
  open(target: LiveTarget, options?: LiveOptions): Promise<LiveSession>;
  typing(target: LiveTarget, options?: TypingOptions): TypingHandle;
  recover(budgetMs?: number): Promise<LiveRecoveryReport>;
  startBackground(): void;
  stopBackground(): void;
};

/** Sessions re-opened under one key (each after the previous ended without a final). */
const MAX_RUNS = 20;

function baseMessage(target: LiveTarget): ChannelMessage {
  return {
    id: target.id ?? randomUUID(),
    channel: target.channel,
    direction: "outbound",
    target: target.target,
    body: { markdown: "" },
    ...(target.accountId !== undefined ? { accountId: target.accountId } : {}),
    ...(target.relation ? { relation: target.relation } : {}),
    ...(target.origin ? { origin: target.origin } : {}),
    ...(target.recipient ? { recipient: target.recipient } : {}),
  };
}

function contextFor(deps: DeliveryDeps, message: ChannelMessage, key: string): MessageSendContext {
  return {
    channel: message.channel,
    message,
    attempt: 1,
    idempotencyKey: key,
    unitIdempotencyKey: `${key}#0`,
    signal: new AbortController().signal,
    log: deps.logger.child({ channel: message.channel, typing: true }),
    ...(message.accountId !== undefined ? { accountId: message.accountId } : {}),
  };
}

/** Builds the live API over the delivery engine. */
export function createLiveApi(
  deps: DeliveryDeps,
  worker: DeliveryWorker,
  options: LiveRuntimeOptions = {},
): LiveApi {
  const env: LiveEnv = {
    deps,
    worker,
    timers: options.timers ?? nodeTimers,
    maxPreviewFailures: options.maxPreviewFailures ?? 5,
    ...(options.onReconcileError ? { onReconcileError: options.onReconcileError } : {}),
  };
  // The adapter of the target's own account (DESIGN §3 "Accounts").
  const adapterOf = (target: LiveTarget): ChannelMessageAdapter =>
    deps.requireAdapter(target.channel, target.accountId);
  let background: ReturnType<typeof setInterval> | undefined;
  let recovering: Promise<LiveRecoveryReport> | undefined;

  const recover = (budgetMs = deps.options.recoveryBudgetMs): Promise<LiveRecoveryReport> => {
    recovering ??= recoverLive(env, budgetMs).finally(() => {
      recovering = undefined;
    });
    return recovering;
  };

  // Opened inside a turn scope: tracked, and the scope's root turn id is stamped unless given.
  // The session belongs to the turn: cancelled when the turn ends without finalizing it.
  const open = (target: LiveTarget, o: LiveOptions = {}): Promise<LiveSession> => {
    const turnId = o.turnId ?? currentTurnId();
    const own = turnOwner();
    return trackInTurn(
      openSession(target, turnId === undefined ? o : { ...o, turnId }).then((session) => {
        own({ close: (outcome) => session.cancel(outcome === "error" ? "error" : "aborted") });
        return session;
      }),
    );
  };

  async function openSession(target: LiveTarget, o: LiveOptions): Promise<LiveSession> {
    const adapter = adapterOf(target);
    const base = baseMessage(target);
    const mode = resolveLiveMode(adapter, base, o.mode ?? "partial", deps.logger);
    const key = o.idempotencyKey ?? defaultLiveKey(base);
    const waitMs = o.waitMs ?? 30_000;
    const existingFinal = await findFinal(deps.store, key, base);
    if (existingFinal) {
      return new LiveSession({
        mode,
        idempotencyKey: key,
        waitMs,
        existingFinal,
        waitFor: (id, ms) => worker.waitFor(id, ms),
        clock: deps.clock,
      });
    }
    const previews = adapter.live?.previews ?? {};
    const preset = mode === "block" ? "keep" : undefined;
    const staleAfterMs = o.staleAfterMs ?? previews.staleAfterMs;
    const record: LiveRecord = {
      tag: LIVE_RECORD_TAG,
      key,
      mode,
      phase: "streaming",
      previews: [],
      canFinalizeInPlace: false,
      onCancel: o.onCancel ?? preset ?? previews.onCancel ?? "delete",
      onRecover: o.onRecover ?? preset ?? previews.onRecover ?? "delete",
      replacements: 0,
      ...(staleAfterMs !== undefined ? { staleAfterMs } : {}),
    };
    for (let run = 1; run <= MAX_RUNS; run++) {
      const liveKey = liveIntentKey(key, run);
      const now = deps.clock();
      const [result] = await deps.store.enqueueIntents([
        {
          idempotencyKey: liveKey,
          message: base,
          orderingKey: liveOrderingKey(liveKey),
          batch: { units: [], atomicity: "all_or_retry_remaining", idempotencyKey: liveKey },
          liveState: record,
          ...(o.turnId ? { turnId: o.turnId } : {}),
          claim: { owner: deps.owner, now, leaseMs: deps.options.leaseMs },
        },
      ]);
      if (!result) throw new Error("store returned no enqueue result");
      const intent = result.intent;
      // An earlier run of this key must have been for the same place (DESIGN §3 "Keys").
      if (!result.created) assertSamePlace(intent, base);
      if (result.created) {
        // Held: never due while the session runs (its lease keeps the worker away too).
        await deps.store.updateIntent(
          intent.id,
          { status: "pending", owner: deps.owner },
          { nextAttemptAt: now + Math.floor(deps.options.maxScheduleAheadMs / 2) },
        );
        const ref = new LiveRef({
          env,
          adapter,
          intentId: intent.id,
          base,
          record,
          turnId: o.turnId,
        });
        const typingAdapter = adapter.live?.typing;
        const typing =
          typingAdapter && o.typing !== false
            ? new TypingIndicator({
                adapter: typingAdapter,
                ctx: contextFor(deps, base, `${key}:typing`),
                clock: deps.clock,
                timers: env.timers,
                ttlMs: typeof o.typing === "object" ? o.typing.ttlMs : undefined,
                log: ref.log,
              }).start()
            : undefined;
        return new LiveSession({ mode, idempotencyKey: key, waitMs, ref, typing });
      }
      if (intent.status === "pending") {
        if (!leaseGone(deps, intent)) {
          throw new LiveSessionBusyError(key, intent.leaseOwner, intent.leaseExpiresAt);
        }
        // A session of an earlier run died: clean it up before starting anew.
        await recoverLiveIntent(env, intent);
      }
    }
    throw new LiveSessionBusyError(key, undefined);
  }

  function typing(target: LiveTarget, o: TypingOptions = {}): TypingHandle {
    const adapter = adapterOf(target);
    const typingAdapter = adapter.live?.typing;
    if (!typingAdapter) {
      throw new NotImplementedError(
        `typing indicator on channel ${adapter.id}`,
        "the adapter has no live.typing",
      );
    }
    const base = baseMessage(target);
    const handle = new TypingIndicator({
      adapter: typingAdapter,
      ctx: contextFor(deps, base, `${target.channel}:${base.id}:typing`),
      clock: deps.clock,
      timers: env.timers,
      ttlMs: o.ttlMs,
      log: deps.logger.child({ channel: target.channel }),
    }).start();
    // Inside a turn the indicator belongs to it: stopped when the turn ends, whatever the outcome,
    // or when the turn replies in this conversation (nothing typing-related after the reply).
    turnOwner()({ close: () => handle.stop() });
    watchForReply({ conversation: conversationOf(base), onReply: () => handle.stop() });
    return handle;
  }

  return {
    open,
    typing,
    recover,
    startBackground() {
      const every = options.recoveryIntervalMs ?? Math.min(deps.options.leaseMs / 2, 5_000);
      if (every <= 0 || background) return;
      background = setInterval(() => {
        recover().catch((error: unknown) => {
          deps.logger.error({ err: error }, "live recovery pass failed");
        });
      }, every);
      background.unref();
    },
    stopBackground() {
      if (background) clearInterval(background);
      background = undefined;
    },
  };
}
