/**
 * A turn's reply ends its typing (DESIGN §7; seed "Live context"): a typing indicator opened in
 * a turn is registered under its conversation, and a durable reply the turn sends to that
 * conversation (`runtime.send`, `enqueue`, a live final) stops it **before** the reply is
 * delivered, so no typing call lands under the reply however long the turn keeps working.
 *
 * @module
 */
import type { ChannelMessage } from "../message/message.ts";
import { currentFrame, type ReplyWatcher } from "./scope.ts";

/**
 * The conversation a message belongs to, as typing sees it: channel, chat id and thread id
 * (accounts are not told apart: a reply by any account of the bot ends the typing).
 */
export function conversationOf(message: Pick<ChannelMessage, "channel" | "target">): string {
  return JSON.stringify([message.channel, message.target.id, message.target.threadId ?? null]);
}

/**
 * Registers `watcher` with the calling code's turn. Call it synchronously where the indicator is
 * opened. @returns an unregister function (a no-op outside a turn).
 */
export function watchForReply(watcher: ReplyWatcher): () => void {
  const state = currentFrame()?.state;
  if (!state || state.ended) return () => {};
  state.replyWatchers.add(watcher);
  return () => state.replyWatchers.delete(watcher);
}

/**
 * Called by the send path once a reply's intent is written, before it is delivered: stops the
 * calling turn's indicators in the reply's conversation and waits until they sent their last
 * call (bounded by the indicator's stop grace). No-op outside a turn.
 */
export async function replyingInTurn(
  message: Pick<ChannelMessage, "channel" | "target">,
): Promise<void> {
  const state = currentFrame()?.state;
  if (!state || state.replyWatchers.size === 0) return;
  const conversation = conversationOf(message);
  const ending = [...state.replyWatchers].filter((w) => w.conversation === conversation);
  for (const w of ending) state.replyWatchers.delete(w);
  await Promise.allSettled(ending.map((w) => w.onReply()));
}

/**
 * True when the calling turn has a typing indicator open in `message`'s conversation, i.e.
 * {@link replyingInTurn} would have something to stop (and wait for). Synchronous.
 */
export function typingOpenFor(message: Pick<ChannelMessage, "channel" | "target">): boolean {
  const state = currentFrame()?.state;
  if (!state || state.replyWatchers.size === 0) return false;
  const conversation = conversationOf(message);
  for (const w of state.replyWatchers) if (w.conversation === conversation) return true;
  return false;
}
