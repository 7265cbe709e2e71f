/**
 * Runs the send adapter's post-send hooks (`afterSendSuccess`, `afterCommit`; seed
 * `message-lifecycle.md`, "Adapter surface" and "Send context": "Send contexts also own
 * channel-local post-send effects"). A hook runs after the platform accepted the message, so
 * its failure must never fail the send: that would send the message again. It is logged and
 * ignored, and a hook that hangs is given up on after {@link SEND_HOOK_TIMEOUT_MS}.
 *
 * @module
 */
import type { MessageReceipt } from "../message/receipt.ts";
import type { ChannelMessageAdapter, MessageSendContext } from "./types.ts";

/**
 * How long (ms) core waits for a send hook before going on without it (the hook keeps
 * running; a late error is only logged).
 */
export const SEND_HOOK_TIMEOUT_MS = 10_000;

/** The send adapter's post-send hooks. */
export type SendHookName = "afterSendSuccess" | "afterCommit";

/**
 * Calls `adapter.send[hook](ctx, receipt)` when the adapter has it. Never throws and never
 * waits longer than `timeoutMs`: an error or a timeout is logged as a warning on `ctx.log`
 * (`{ hook, err }`) and the caller goes on as if the hook had succeeded.
 *
 * @param timeoutMs - the longest wait, in ms. @defaultValue {@link SEND_HOOK_TIMEOUT_MS}
 * @returns true when the hook ran to completion, false when absent, failed or timed out.
 */
export async function runSendHook(
  adapter: Pick<ChannelMessageAdapter, "id" | "send">,
  hook: SendHookName,
  ctx: MessageSendContext,
  receipt: MessageReceipt,
  timeoutMs = SEND_HOOK_TIMEOUT_MS,
): Promise<boolean> {
  const fn = adapter.send[hook];
  if (!fn) return false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
    timer.unref?.();
  });
  const run = (async () => fn.call(adapter.send, ctx, receipt))().then(
    () => "ok" as const,
    (error: unknown) => {
      ctx.log.warn(
        { hook, channel: adapter.id, err: error },
        `send hook ${hook} failed; the message stands (it is not sent again)`,
      );
      return "failed" as const;
    },
  );
  const result = await Promise.race([run, timedOut]);
  clearTimeout(timer);
  if (result === "timeout") {
    ctx.log.warn(
      { hook, channel: adapter.id, timeoutMs },
      `send hook ${hook} still running after ${timeoutMs} ms; delivery goes on without it`,
    );
  }
  return result === "ok";
}
