/**
 * Gateway-failure notices (seed `message-lifecycle.md`, "Origin metadata"; CASES C56): when a
 * turn fails — the bot handler throws, or runs longer than `timeoutMs` — the gateway posts an
 * opt-in notice ("The assistant failed, please try again") where the message came from.
 *
 * The notice is a durable intent like any reply, keyed by the inbound message
 * (`failure-notice:<channel>:<account>:<inbound id>`), so a handler that fails again on a
 * redelivery, a recovery or after a crash posts it once. It carries herald's `gateway_failure`
 * origin: channels with native metadata tag the platform message with it (Slack `metadata`,
 * Matrix event content, qa), the others find it in the outbound registry, which every herald bot
 * sharing the store reads by platform message — so no herald bot, this one or another, takes
 * the notice as a prompt. A notice never triggers a notice: it is dropped as an echo before any
 * handler, and a message carrying herald's origin never gets one.
 *
 * @module
 */
import {
  type ChannelMessage,
  type GatewayFailureCode,
  gatewayFailureOrigin,
  type HeraldLogger,
  type MessageRuntime,
  placeReply,
} from "@herald/core";

/** What the gateway posts when a turn fails, per channel account. Off unless configured. */
export type FailureNoticeOptions = {
  /** The notice text (markdown), e.g. "The assistant failed; please try again." */
  text: string;
  /**
   * Post the notice when the handler runs longer than this, in ms (the handler keeps running;
   * a later failure posts nothing more). @defaultValue none (only a thrown error posts it)
   */
  timeoutMs?: number | undefined;
  /** The failure code carried in the origin. @defaultValue "agent_failed_before_reply" */
  code?: GatewayFailureCode | undefined;
};

/** The idempotency key of the failure notice answering `inbound` (one per inbound message). */
export function failureNoticeKey(inbound: Pick<ChannelMessage, "channel" | "accountId" | "id">) {
  return `failure-notice:${inbound.channel}:${inbound.accountId ?? ""}:${inbound.id}`;
}

/**
 * Posts the failure notice for `inbound` durably; resolves once the intent is written (the
 * delivery worker sends it), or when the send settled first (sent, refused). Never throws: a
 * notice that cannot be stored is logged.
 */
export async function postFailureNotice(
  runtime: MessageRuntime,
  inbound: ChannelMessage,
  options: FailureNoticeOptions,
  logger: HeraldLogger,
): Promise<void> {
  // A message carrying herald's own origin never gets a notice (no loops), whatever let it in.
  if (inbound.origin?.source === "herald") return;
  const message: ChannelMessage = {
    id: `${inbound.id}:failure-notice`,
    channel: inbound.channel,
    direction: "outbound",
    ...placeReply(inbound),
    body: { markdown: options.text },
    origin: gatewayFailureOrigin(options.code ?? "agent_failed_before_reply"),
    ...(inbound.accountId === undefined ? {} : { accountId: inbound.accountId }),
  };
  let durable!: () => void;
  const written = new Promise<void>((resolve) => {
    durable = resolve;
  });
  const sent = runtime
    .send(message, {
      idempotencyKey: failureNoticeKey(inbound),
      keyMatch: "slot",
      onDurable: () => durable(),
    })
    .then(
      () => undefined,
      (error: unknown) => {
        // DeliveryPendingError: stored, still being delivered — the worker finishes it.
        if ((error as { name?: string })?.name !== "DeliveryPendingError") {
          logger.warn(
            { err: error, channel: inbound.channel, inbound: inbound.id },
            "gateway-failure notice not sent",
          );
        }
      },
    );
  await Promise.race([written, sent]);
}

/**
 * Runs one turn under `notice`: on a throw the notice is posted (then the error is rethrown, so
 * the message is redelivered as before); past `timeoutMs` it is posted while the turn goes on.
 */
export async function withFailureNotice(
  runtime: MessageRuntime,
  inbound: ChannelMessage,
  notice: FailureNoticeOptions | undefined,
  logger: HeraldLogger,
  work: () => Promise<void>,
): Promise<void> {
  if (!notice) return work();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let posting: Promise<void> | undefined;
  const post = () => {
    posting ??= postFailureNotice(runtime, inbound, notice, logger);
    return posting;
  };
  if (notice.timeoutMs !== undefined) {
    timer = setTimeout(() => void post(), notice.timeoutMs);
    timer.unref?.();
  }
  try {
    await work();
  } catch (error) {
    await post();
    throw error;
  } finally {
    if (timer) clearTimeout(timer);
    if (posting) await posting;
  }
}
