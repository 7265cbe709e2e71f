/**
 * Live mode `native`: the platform's own live message, through the adapter's live lifecycle
 * (`begin` / `update` / `finalize` / `cancel`, seed "Live context"; `liveLifecycleOf` also reads
 * the deprecated `live.stream`). The message begins with the first text, then grows by updates
 * of what is new (throttled like edits); `finalize` ends it with the final text and what the
 * message already shows (so a stop call that appends sends only the rest). An update is not
 * idempotent, so one whose outcome is unknown stops updating and marks the shown text
 * uncertain: `finalize` then replaces the text; so does a rewrite of earlier text.
 *
 * @module
 */

import type { LiveStreamFinal } from "../adapter/live.ts";
import { liveLifecycleOf, livePartOf, liveStateOf } from "../adapter/liveLifecycle.ts";
import { failpoint } from "../failpoint.ts";
import { type MessageReceipt, receiptFromParts } from "../message/receipt.ts";
import {
  liveCall,
  liveContext,
  nextCallKey,
  reserveNow,
  retryIdempotent,
  tryCall,
} from "./calls.ts";
import type { LiveRef } from "./env.ts";
import { scopesFor } from "./env.ts";
import { commitVisibleFinal } from "./final.ts";
import { addPreview } from "./inDoubt.ts";
import { degrade, type Feed, failed, inDoubtGate, type StepResult } from "./previews.ts";
import { visiblePreviews } from "./record.ts";
import { renderUnits } from "./segments.ts";

const IDLE: StepResult = { next: "idle" };

/** Runs one native-stream step. */
export async function nativeStep(ref: LiveRef, feed: Feed): Promise<StepResult> {
  const live = liveLifecycleOf(ref.adapter);
  if (!live) return degrade(ref, feed, "the channel has no native stream");
  const gate = await inDoubtGate(ref, feed);
  if (gate) return gate;
  const text = feed.text;
  if (text.trim() === "") return IDLE;
  const open = ref.record.previews.find((p) => p.stream);
  if (!open) {
    const rl = liveCall(ref, "stream_begin");
    const wait = reserveNow(ref, scopesFor(ref.adapter, "preview"), rl);
    if (wait > 0) return { next: "wait", ms: wait };
    const key = `${ref.intentId}:stream`;
    // The stream's first text as the channel renders it: what a reconciler looks for.
    const [unit] = await renderUnits(ref.adapter, { ...ref.base, body: { markdown: text } }, key);
    ref.record.sendingPreview = {
      index: 0,
      idempotencyKey: key,
      startedAt: ref.now,
      ...(unit ? { unit } : {}),
    };
    await ref.save();
    const ctx = liveContext(ref, key, 0, undefined, rl);
    const first = { markdown: text, deltaMarkdown: text };
    const r = await tryCall(ref, ctx, () => live.begin(ctx, first), rl);
    if (!r.ok) return failed(ref, feed, "send", r.failure, rl);
    failpoint("live.after_preview");
    addPreview(ref, {
      index: 0,
      part: livePartOf(r.value),
      hash: "",
      sentAt: ref.now,
      stream: true,
    });
    feed.streamed = text;
    feed.failures = 0;
    feed.rateLimited = 0;
    await ref.save();
    return { next: "again" };
  }
  if (open.gone) return IDLE;
  const shown = feed.streamed ?? "";
  if (!text.startsWith(shown) || text.length === shown.length) return IDLE;
  const rl = liveCall(ref, "stream_append", "text", open.part);
  const wait = reserveNow(ref, scopesFor(ref.adapter, "edit"), rl);
  if (wait > 0) return { next: "wait", ms: wait };
  const ctx = liveContext(ref, nextCallKey(ref, "append"), 0, undefined, rl);
  const step = { markdown: text, deltaMarkdown: text.slice(shown.length) };
  const state = liveStateOf(open.part, open.sentAt);
  const r = await tryCall(ref, ctx, () => live.update(ctx, state, step), rl);
  if (!r.ok) {
    const f = r.failure;
    if (f.kind === "rate_limit" || (f.evidence === "not_dispatched" && f.kind === "transient")) {
      return failed(ref, feed, "edit", f, rl);
    }
    if (f.kind === "not_found") {
      open.gone = true;
      await ref.save();
    }
    // It may have landed: the stream shows `shown` or more, and `finish` must replace the text.
    if (f.evidence !== "not_dispatched") feed.streamUncertain = true;
    return degrade(ref, feed, `stream append failed: ${f.kind} (${f.evidence}): ${f.message}`);
  }
  feed.streamed = text;
  feed.failures = 0;
  feed.rateLimited = 0;
  return { next: "again" };
}

/** The open native stream, if it can still be finished in place. */
export function finishableStream(ref: LiveRef) {
  const p = visiblePreviews(ref.record).find((x) => x.stream);
  return p && p.part.platformMessageId !== "" ? p : undefined;
}

/** What the stream shows per the session's feed, for `finish` ({@link LiveStreamFinal}). */
export function streamFinalOf(feed: Feed, markdown: string): LiveStreamFinal {
  return { markdown, shown: feed.streamed ?? "", shownExact: feed.streamUncertain !== true };
}

/**
 * Finishes the stream with the final text (retried: `finalize` is idempotent), handing the
 * adapter what is already shown so a stop that appends cannot double the text, and records it
 * as the delivered final under `key`. @returns undefined when the stream could not be finished.
 */
export async function finishInPlace(
  ref: LiveRef,
  key: string,
  final: LiveStreamFinal,
): Promise<MessageReceipt | undefined> {
  const live = liveLifecycleOf(ref.adapter);
  const open = finishableStream(ref);
  if (!live || !open) return undefined;
  const finalMarkdown = final.markdown;
  ref.record = {
    ...ref.record,
    phase: "finalizing",
    finalKey: key,
    nativeFinal: finalMarkdown,
    nativeShown: { text: final.shown, exact: final.shownExact },
  };
  await ref.save();
  const rl = liveCall(ref, "stream_finish", "text", open.part);
  const ctx = liveContext(ref, `${ref.intentId}:finish`, 0, undefined, rl);
  let part = open.part;
  const r = await retryIdempotent(ref, {
    call: "edit",
    rateLimit: rl,
    ctx,
    fn: async () => {
      const finalized = await live.finalize(ctx, liveStateOf(open.part, open.sentAt), final);
      part = finalized.parts[0] ?? open.part;
    },
    notFoundIsSuccess: false,
  });
  if (!r.ok) {
    ref.log.warn({ failureKind: r.failure.kind }, "could not finish the native stream in place");
    return undefined;
  }
  const receipt = receiptFromParts([{ ...part, index: 0 }], { sentAt: ref.now });
  return commitVisibleFinal(ref, key, receipt, { ...ref.base, body: { markdown: finalMarkdown } });
}
