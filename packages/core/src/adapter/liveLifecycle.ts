/**
 * The live adapter as the seed's lifecycle (seed `message-lifecycle.md`, "Live context":
 * `begin` / `update` / `finalize` / `cancel`), whichever shape the channel wrote: the lifecycle
 * methods themselves, or the deprecated `live.stream` (`begin` / `append` / `finish`) read
 * through the documented mapping. Core's live module calls only this.
 *
 * Core keeps the live message as one receipt part (saved on the live intent); the state handed
 * to the adapter is built from it, and the part is read back from the state an adapter returns.
 *
 * @module
 */
import type { LiveMessageState } from "../message/live.ts";
import type { ChannelMessage } from "../message/message.ts";
import {
  type MessageReceipt,
  type MessageReceiptPart,
  receiptFromParts,
} from "../message/receipt.ts";
import type {
  LiveCancelReason,
  LiveMessageUpdate,
  LiveStreamFinal,
  MessageLiveAdapter,
} from "./live.ts";
import type { ChannelMessageAdapter, MessageSendContext } from "./types.ts";

/** The seed's live lifecycle, every method present (`cancel` may do nothing). */
export type LiveLifecycle = {
  supports(message: ChannelMessage): boolean;
  begin(ctx: MessageSendContext, first: LiveMessageUpdate): Promise<LiveMessageState>;
  update(
    ctx: MessageSendContext,
    state: LiveMessageState,
    update: LiveMessageUpdate,
  ): Promise<LiveMessageState>;
  finalize(
    ctx: MessageSendContext,
    state: LiveMessageState,
    final: LiveStreamFinal,
  ): Promise<MessageReceipt>;
  cancel(ctx: MessageSendContext, state: LiveMessageState, reason: LiveCancelReason): Promise<void>;
};

/** The state of a live message whose platform message is `part` (`mode: "native"`). */
export function liveStateOf(part: MessageReceiptPart, visibleSince?: number): LiveMessageState {
  const state: LiveMessageState = {
    mode: "native",
    receipt: receiptFromParts([part], visibleSince !== undefined ? { sentAt: visibleSince } : {}),
    canFinalizeInPlace: true,
  };
  if (visibleSince !== undefined) state.visibleSince = visibleSince;
  return state;
}

/**
 * The platform message a state names (its receipt's first part, index 0), or a part with an
 * empty id when the adapter returned no receipt (core then cannot finish it in place).
 */
export function livePartOf(state: LiveMessageState): MessageReceiptPart {
  const part = state.receipt?.parts[0];
  if (part) return { ...part, index: 0 };
  const id = state.receipt?.primaryPlatformMessageId ?? "";
  return { platformMessageId: id, kind: "text", index: 0 };
}

function fromLifecycle(live: MessageLiveAdapter): LiveLifecycle | undefined {
  const { begin, update, finalize, cancel, supports } = live;
  if (!begin || !update || !finalize) return undefined;
  return {
    supports: (message) => supports?.call(live, message) ?? true,
    begin: (ctx, first) => begin.call(live, ctx, first),
    update: (ctx, state, step) => update.call(live, ctx, state, step),
    finalize: (ctx, state, final) => finalize.call(live, ctx, state, final),
    cancel: async (ctx, state, reason) => {
      if (cancel) await cancel.call(live, ctx, state, reason);
    },
  };
}

function fromStream(live: MessageLiveAdapter): LiveLifecycle | undefined {
  const stream = live.stream;
  if (!stream) return undefined;
  return {
    supports: (message) => stream.supports?.(message) ?? true,
    begin: async (ctx, first) => liveStateOf(await stream.begin(ctx, first.markdown)),
    update: async (ctx, state, step) => {
      await stream.append(ctx, livePartOf(state), step.deltaMarkdown);
      return state;
    },
    finalize: async (ctx, state, final) => {
      const part = await stream.finish(ctx, livePartOf(state), final);
      return receiptFromParts([{ ...part, index: 0 }]);
    },
    cancel: async (ctx, state) => {
      await stream.finish(ctx, livePartOf(state));
    },
  };
}

/**
 * The channel's live lifecycle: its `begin` / `update` / `finalize` / `cancel` when it has
 * `begin`, `update` and `finalize`, else its deprecated `live.stream` mapped to them, else
 * undefined (the channel has no live message of its own; previews still work).
 */
export function liveLifecycleOf(
  adapter: Pick<ChannelMessageAdapter, "live">,
): LiveLifecycle | undefined {
  const live = adapter.live;
  if (!live) return undefined;
  return fromLifecycle(live) ?? fromStream(live);
}
