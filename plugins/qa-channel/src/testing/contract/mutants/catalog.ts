/**
 * The mutant catalog ([H16] item 1; DESIGN §9 "Mutant adapters prove the suite bites"): bugs
 * that really happen in channel adapters, each written as a wrapper over a real adapter (so it
 * runs on any channel) and paired with the contract test that must catch it. qa-channel runs it
 * against its own adapter in `pnpm check`; a surviving mutant fails the build.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { FEATURE_MUTANTS } from "./features.ts";
import type { Mutant } from "./types.ts";
import {
  answered,
  mutateClassify,
  mutateSendContext,
  mutateSendReceipt,
  noAnswer,
  otherBotsAreSelf,
  swallowDeleteErrors,
  swallowEditErrors,
  watermarkBeforeAck,
} from "./wrap.ts";

/** Classification mutants: one wrong answer of `classifyError` each. */
export const CLASSIFY_MUTANTS: readonly Mutant[] = [
  {
    id: "classify.400-transient",
    kind: "classification",
    description: "a 400 (invalid payload) is classified transient: retried forever",
    killedBy: "classify.status-400",
    adapter: (a) =>
      mutateClassify(a, ({ failure }) =>
        failure.kind === "invalid_payload" ? { ...failure, kind: "transient" } : failure,
      ),
  },
  {
    id: "classify.401-transient",
    kind: "classification",
    description: "a 401 (credentials rejected) is classified transient",
    killedBy: "classify.status-401",
    adapter: (a) =>
      mutateClassify(a, ({ failure }) =>
        failure.kind === "auth" ? { ...failure, kind: "transient" } : failure,
      ),
  },
  {
    id: "classify.401-as-permission",
    kind: "classification",
    description: "a 401 is classified as a 403 (permission instead of auth: the wrong fix shown)",
    killedBy: "classify.status-401",
    adapter: (a) =>
      mutateClassify(a, ({ failure }) =>
        failure.kind === "auth" ? { ...failure, kind: "permission" } : failure,
      ),
  },
  {
    id: "classify.403-transient",
    kind: "classification",
    description: "a 403 (bot lacks access) is classified transient",
    killedBy: "retry.permanent-rejection",
    adapter: (a) =>
      mutateClassify(a, ({ failure }) =>
        failure.kind === "permission" ? { ...failure, kind: "transient" } : failure,
      ),
  },
  {
    id: "classify.404-transient",
    kind: "classification",
    description: "a 404 is classified transient",
    killedBy: "classify.status-404",
    adapter: (a) =>
      mutateClassify(a, ({ failure, error }) =>
        answered(error) && (failure.kind === "not_found" || failure.kind === "auth")
          ? { ...failure, kind: "transient" }
          : failure,
      ),
  },
  {
    id: "classify.409-transient",
    kind: "classification",
    description: "a 409 (conflict) is classified transient",
    killedBy: "classify.status-409",
    adapter: (a) =>
      mutateClassify(a, ({ failure }) =>
        failure.kind === "conflict" ? { ...failure, kind: "transient" } : failure,
      ),
  },
  {
    id: "classify.429-without-wait-unknown",
    kind: "classification",
    description:
      "a 429 without retry-after is classified `unknown`, `maybe_sent` (not a rate limit)",
    killedBy: "classify.rate-limit-no-wait",
    adapter: (a) =>
      mutateClassify(a, ({ failure }) =>
        failure.kind === "rate_limit" && failure.retryAfterMs === undefined
          ? { ...failure, kind: "unknown", evidence: "maybe_sent" }
          : failure,
      ),
  },
  {
    id: "classify.429-retry-after-dropped",
    kind: "classification",
    description: "a 429's retry-after is dropped: the retry comes after the short backoff",
    killedBy: "rate-limit.body-retry-after",
    adapter: (a) =>
      mutateClassify(a, ({ failure }) => {
        if (failure.kind !== "rate_limit") return failure;
        const { retryAfterMs: _dropped, ...rest } = failure;
        return rest;
      }),
  },
  {
    id: "classify.header-only-retry-after-ignored",
    kind: "classification",
    description:
      "a 429 whose wait came only as a Retry-After header (whole seconds, none in the body) is read as a 429 without a wait: the retry comes after herald's short backoff, too early",
    killedBy: "classify.rate-limit-header",
    adapter: (a) =>
      mutateClassify(a, ({ failure }) => {
        // A header's wait is whole seconds; the contract's body waits are not (400 ms).
        if (failure.kind !== "rate_limit" || (failure.retryAfterMs ?? 1) % 1_000 !== 0) {
          return failure;
        }
        const { retryAfterMs: _ignored, ...rest } = failure;
        return rest;
      }),
  },
  {
    id: "classify.retry-after-seconds-read-as-ms",
    kind: "classification",
    description: "Retry-After read in the wrong unit: a wait in seconds taken as milliseconds",
    killedBy: "rate-limit.header-retry-after",
    adapter: (a) =>
      mutateClassify(a, ({ failure }) =>
        failure.retryAfterMs === undefined
          ? failure
          : { ...failure, retryAfterMs: Math.ceil(failure.retryAfterMs / 1_000) },
      ),
  },
  {
    id: "classify.retry-after-ms-read-as-seconds",
    kind: "classification",
    description: "Retry-After read in the wrong unit: a wait in milliseconds taken as seconds",
    killedBy: "classify.rate-limit-body",
    adapter: (a) =>
      mutateClassify(a, ({ failure }) =>
        failure.retryAfterMs === undefined
          ? failure
          : { ...failure, retryAfterMs: failure.retryAfterMs * 1_000 },
      ),
  },
  {
    id: "classify.5xx-not-dispatched",
    kind: "classification",
    description: "a 5xx is classified `not_dispatched`: replayed blindly though it may have landed",
    killedBy: "classify.status-5xx",
    adapter: (a) =>
      mutateClassify(a, ({ failure, error }) =>
        answered(error) && failure.evidence === "maybe_sent"
          ? { ...failure, evidence: "not_dispatched" }
          : failure,
      ),
  },
  {
    id: "classify.5xx-permanent",
    kind: "classification",
    description: "a 5xx is classified as a permanent invalid payload",
    killedBy: "classify.status-5xx",
    adapter: (a) =>
      mutateClassify(a, ({ failure, error }) =>
        answered(error) && failure.kind === "transient"
          ? { ...failure, kind: "invalid_payload", evidence: "not_dispatched" }
          : failure,
      ),
  },
  {
    id: "classify.reset-not-dispatched",
    kind: "classification",
    description: "a reset (before or after the write) is classified `not_dispatched`",
    killedBy: "classify.reset-before-accept",
    adapter: (a) =>
      mutateClassify(a, ({ failure, error }) =>
        noAnswer(error, "reset") ? { ...failure, evidence: "not_dispatched" } : failure,
      ),
  },
  {
    id: "classify.reset-permanent",
    kind: "classification",
    description: "a reset is classified as a permanent failure: the message is dropped",
    killedBy: "unknown-send.reset-after-accept",
    adapter: (a) =>
      mutateClassify(a, ({ failure, error }) =>
        noAnswer(error, "reset")
          ? { ...failure, kind: "invalid_payload", evidence: "not_dispatched" }
          : failure,
      ),
  },
  {
    id: "classify.timeout-not-dispatched",
    kind: "classification",
    description: "a client timeout is classified `not_dispatched`",
    killedBy: "classify.timeout",
    adapter: (a) =>
      mutateClassify(a, ({ failure, error }) =>
        noAnswer(error, "timeout", "aborted")
          ? { ...failure, evidence: "not_dispatched" }
          : failure,
      ),
  },
  {
    id: "classify.refused-permanent",
    kind: "classification",
    description: "a refused connection (provably never sent) is classified permanent",
    killedBy: "retry.refused-connection",
    adapter: (a) =>
      mutateClassify(a, ({ failure, error }) =>
        noAnswer(error, "refused") ? { ...failure, kind: "invalid_payload" } : failure,
      ),
  },
];

/** Idempotency-key mutants: the call key (`ctx.unitIdempotencyKey`) is wrong. */
export const KEY_MUTANTS: readonly Mutant[] = [
  {
    id: "keys.shared-across-parts",
    kind: "idempotency-key",
    description: "every part of a message sends the intent's key: the platform drops parts 2..n",
    killedBy: "batch.receipts",
    adapter: (a) =>
      mutateSendContext(a, (ctx) => ({ ...ctx, unitIdempotencyKey: ctx.idempotencyKey })),
  },
  {
    id: "keys.changed-between-retries",
    kind: "idempotency-key",
    description: "the key changes with each attempt: a replay after a lost answer duplicates",
    killedBy: "unknown-send.reset-after-accept",
    adapter: (a) =>
      mutateSendContext(a, (ctx) => ({
        ...ctx,
        unitIdempotencyKey: `${ctx.unitIdempotencyKey}~${ctx.attempt}`,
      })),
  },
  {
    id: "keys.changed-across-restart",
    kind: "idempotency-key",
    description: "the key includes a per-process id: the replay after a crash duplicates",
    killedBy: "crash.after-platform-accept",
    adapter: (a) => {
      const boot = randomUUID().slice(0, 8);
      return mutateSendContext(a, (ctx) => ({
        ...ctx,
        unitIdempotencyKey: `${ctx.unitIdempotencyKey}~${boot}`,
      }));
    },
  },
  {
    id: "keys.reused-across-operations",
    kind: "idempotency-key",
    description:
      "the key names the conversation and part, not the operation: later messages vanish",
    killedBy: "send.distinct-operations",
    adapter: (a) =>
      mutateSendContext(a, (ctx, index) => ({
        ...ctx,
        unitIdempotencyKey: `${ctx.message.target.id}#${index}`,
      })),
  },
];

/** Send-path mutants: receipts, origin, threads, replies. */
export const SEND_MUTANTS: readonly Mutant[] = [
  {
    id: "receipts.later-parts-name-the-first",
    kind: "receipts",
    description: "the receipt of parts 2..n names part 1's message",
    killedBy: "batch.receipts",
    adapter: (a) => {
      const first = new Map<string, string>();
      return mutateSendReceipt(a, (part, ctx, index) => {
        if (index === 0) first.set(ctx.idempotencyKey, part.platformMessageId);
        const id = first.get(ctx.idempotencyKey);
        return index > 0 && id ? { ...part, platformMessageId: id } : part;
      });
    },
  },
  {
    id: "origin.not-encoded-on-send",
    kind: "origin",
    description: "the send path drops the message's herald origin (no native metadata sent)",
    killedBy: "origin.stored-on-send",
    adapter: (a) =>
      mutateSendContext(a, (ctx) => {
        const { origin: _dropped, ...message } = ctx.message;
        return { ...ctx, message };
      }),
  },
  {
    id: "thread.dropped",
    kind: "thread-reply",
    description: "a reply in a thread is posted to the conversation instead",
    killedBy: "send.thread",
    adapter: (a) =>
      mutateSendContext(a, (ctx) => {
        const { threadId: _t, parentId: _p, ...target } = ctx.message.target;
        return { ...ctx, message: { ...ctx.message, target: { ...target, kind: "group" } } };
      }),
  },
  {
    id: "thread.dropped-on-later-chunks",
    kind: "thread-reply",
    description: "chunks 2..n of a multi-part reply leave the thread",
    killedBy: "crash.thread-multi-part",
    adapter: (a) =>
      mutateSendContext(a, (ctx, index) => {
        if (index === 0) return ctx;
        const { threadId: _t, parentId: _p, ...target } = ctx.message.target;
        const { relation: _r, ...message } = ctx.message;
        return { ...ctx, message: { ...message, target: { ...target, kind: "group" } } };
      }),
  },
  {
    id: "reply.relation-dropped",
    kind: "thread-reply",
    description: "the reply-to relation is dropped: the answer does not quote the question",
    killedBy: "reply.quote-multi-part",
    adapter: (a) =>
      mutateSendContext(a, (ctx) => {
        const { relation: _dropped, ...message } = ctx.message;
        return { ...ctx, message };
      }),
  },
  {
    id: "reply.reference-on-every-chunk",
    kind: "thread-reply",
    description: "every part is sent as if it were part 1: chunks 2..n repeat the reply reference",
    killedBy: "reply.quote-multi-part",
    adapter: (a) => {
      const send = a.send;
      return {
        ...a,
        send: {
          ...send,
          send: async (ctx, unit) => ({
            ...(await send.send.call(send, ctx, { ...unit, index: 0 })),
            index: unit.index,
          }),
        },
      };
    },
  },
  {
    id: "thread.dropped-on-later-chunks-live",
    kind: "thread-reply",
    description: "chunks 2..n of a multi-part reply in a thread are posted to the conversation",
    killedBy: "reply.thread-multi-part",
    adapter: (a) =>
      mutateSendContext(a, (ctx, index) => {
        if (index === 0) return ctx;
        const { threadId: _t, parentId: _p, ...target } = ctx.message.target;
        const { relation: _r, ...message } = ctx.message;
        return { ...ctx, message: { ...message, target: { ...target, kind: "group" } } };
      }),
  },
  {
    id: "edit.returns-a-new-target",
    kind: "edit-target",
    description: "an edit's receipt names another message: the next edit misses the original",
    killedBy: "edit.twice-from-receipt",
    adapter: (a) => {
      const send = a.send;
      const edit = send.edit;
      if (!edit) return a;
      return {
        ...a,
        send: {
          ...send,
          edit: async (ctx, target, unit) => {
            const part = await edit.call(send, ctx, target, unit);
            return { ...part, platformMessageId: `${part.platformMessageId}.edited` };
          },
        },
      };
    },
  },
  {
    id: "edit.errors-swallowed",
    kind: "swallowed-errors",
    description: "a failed edit is reported as done",
    killedBy: "classify.edit-error-surfaced",
    adapter: swallowEditErrors,
  },
  {
    id: "delete.errors-swallowed",
    kind: "swallowed-errors",
    description: "a failed delete is reported as done",
    killedBy: "classify.delete-error-surfaced",
    adapter: swallowDeleteErrors,
  },
];

/** Receive-path mutants. */
export const RECEIVE_MUTANTS: readonly Mutant[] = [
  {
    id: "dedupe.per-delivery",
    kind: "dedupe",
    description: "the dedupe identity names the delivery, not the message: a redelivery runs twice",
    killedBy: "dedupe.redelivery",
    adapter: (a) => {
      const receive = a.receive;
      if (!receive) return a;
      let delivery = 0;
      return {
        ...a,
        receive: {
          ...receive,
          dedupeIdentity: (message, event) =>
            `${receive.dedupeIdentity?.(message, event) ?? message.platformMessageId ?? message.id}~${++delivery}`,
        },
      };
    },
  },
  {
    id: "echo.self-ids-lost",
    kind: "echo",
    description: "the adapter forgets its own ids: its own echoes reach the handler",
    killedBy: "origin.own-echo",
    adapter: (a) => (a.receive ? { ...a, receive: { ...a.receive, selfIds: () => [] } } : a),
  },
  {
    id: "echo.other-bot-is-self",
    kind: "echo",
    description:
      "the self check takes any bot author for us (bot flag instead of our own ids): other bots' messages are dropped as our echoes",
    killedBy: "origin.other-bot-not-self",
    adapter: (a) => (a.receive ? { ...a, receive: otherBotsAreSelf(a.receive) } : a),
  },
  {
    id: "origin.not-decoded",
    kind: "origin",
    description: "native origin metadata is not decoded: tagged herald echoes are processed",
    killedBy: "origin.tagged-echo",
    adapter: (a) => (a.origin ? { ...a, origin: { ...a.origin, decode: () => undefined } } : a),
  },
  {
    id: "watermark.before-ack",
    kind: "watermark",
    description: "the receiver advances its watermark before the event's work is acked",
    killedBy: "receive.crash-after-watermark",
    sink: (sink) => watermarkBeforeAck(sink),
  },
];

/**
 * Lookup mutants: the adapter's `send.reconcileUnknownSend` (a send whose answer was lost) finds
 * the wrong message. Run them against a harness whose adapter reconciles by lookup.
 */
export const RECONCILE_MUTANTS: readonly Mutant[] = [
  {
    id: "reconcile.claims-an-earlier-part",
    kind: "reconcile",
    description:
      "the lookup for a multi-part message's lost part claims a part already delivered (the first message it finds, not the one carrying that part's key)",
    killedBy: "unknown-send.multi-part-reset-after-accept",
    adapter: (a) => {
      const send = a.send;
      const reconcile = send.reconcileUnknownSend;
      // A platform that deduplicates by key replays the lost part with its key: no lookup is
      // asked, so this mutant has nothing to break there (not applicable).
      if (!reconcile || a.capabilities.delivery?.idempotencyKey) return a;
      return {
        ...a,
        send: {
          ...send,
          reconcileUnknownSend: async (ctx, units) => {
            const result = await reconcile.call(send, ctx, units);
            const first = ctx.previousReceipt?.parts[0]?.platformMessageId;
            if (result.status !== "sent" || first === undefined) return result;
            return {
              ...result,
              parts: result.parts.map((part) => ({ ...part, platformMessageId: first })),
            };
          },
        },
      };
    },
  },
];

/** Live mutants (previews, typing), including the core one. */
export const LIVE_MUTANTS: readonly Mutant[] = [
  {
    id: "live.preview-left-after-fresh-final",
    kind: "preview-cleanup",
    description: "core: after a fresh final, the previews are not deleted (core mutation)",
    killedBy: "live.fresh-final",
    core: ["live.keep-previews-after-fresh-final"],
  },
  {
    id: "live.cancel-keeps-preview",
    kind: "preview-cleanup",
    description: "the adapter's preview policy keeps a cancelled preview visible",
    killedBy: "live.cancel",
    // Previews need only `capabilities.live.edit`: an adapter without a `live` member gets one.
    adapter: (a) => ({
      ...a,
      live: { ...a.live, previews: { ...a.live?.previews, onCancel: "keep" } },
    }),
  },
  {
    id: "typing.after-stop",
    kind: "typing",
    description: "a typing refresh already scheduled fires after stop: the indicator comes back",
    killedBy: "live.no-typing-after-stop",
    adapter: (a) => {
      const typing = a.live?.typing;
      if (!a.live || !typing) return a;
      return {
        ...a,
        live: {
          ...a.live,
          typing: {
            ...typing,
            stop: async (ctx) => {
              await typing.stop?.(ctx);
              setTimeout(() => void typing.start(ctx).catch(() => {}), 30);
            },
          },
        },
      };
    },
  },
];

/**
 * Mutants that run on any channel adapter (wrappers over the adapter contract). Pick the ones
 * your adapter has the capability for (edit, delete, inbound, typing, native idempotency).
 */
export const CHANNEL_MUTANTS: readonly Mutant[] = [
  ...CLASSIFY_MUTANTS,
  ...KEY_MUTANTS,
  ...SEND_MUTANTS,
  ...RECEIVE_MUTANTS,
  ...RECONCILE_MUTANTS,
  ...LIVE_MUTANTS,
  ...FEATURE_MUTANTS,
];
