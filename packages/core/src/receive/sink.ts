/**
 * The receiver sink (DESIGN §8): what a channel's receiver delivers into — `receive` for each
 * raw platform event, and the durable position trackers of its sources (integer `watermark`,
 * opaque `cursor`). The gateway builds one per account; `@herald/plugin-sdk/testing` builds the
 * same one for plugin tests.
 *
 * @module
 */
import type { HeraldLogger } from "../logger.ts";
import { silentLogger } from "../logger.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import type { WatermarkKey } from "../state/types.ts";
import { type CursorTracker, createCursorTracker } from "./cursor.ts";
import type { ReceiveOutcome, ReceiveSource, ReceiveTicket } from "./types.ts";
import {
  createWatermarkTracker,
  type WatermarkRestart,
  type WatermarkTracker,
} from "./watermark.ts";

/** Where a receiver hands inbound platform events. */
export type ReceiverSink = {
  /**
   * Runs one raw platform event through herald's receive lifecycle. Answer the platform (HTTP
   * status, polling offset) when `ack` resolves; `done` resolves when processing ended. A
   * receiver serving several accounts (one Slack Events URL for many workspaces) names the
   * account with `source.accountId`; otherwise it is the sink's own account.
   */
  receive(raw: unknown, source?: Partial<Omit<ReceiveSource, "channel">>): ReceiveTicket;
  /**
   * The integer watermark of a polling source of this account (`source` separates several):
   * `load()`, fetch after `resumeAfter()`, `begin(id)` each update, `track(id, ack)` — the
   * persisted offset never passes unfinished work, and a restart of the platform's id sequence
   * is followed (logged and counted).
   */
  watermark(source?: string): WatermarkTracker;
  /**
   * The opaque cursor of a source (Matrix `next_batch`): `load()`, then per response
   * `batch(next)`, `item().track(ack)` for each event, `seal()`. A batch's `next` is persisted
   * once it and every earlier batch are done.
   */
  cursor(source: string): CursorTracker;
  logger: HeraldLogger;
};

/** Options of {@link createReceiverSinkFor}. */
export type ReceiverSinkOptions = {
  /** Runs one delivery (the message runtime's `receive`). */
  receive(raw: unknown, source: ReceiveSource): ReceiveTicket;
  store: MessageStateStore;
  channel: string;
  /** The sink's own account. */
  accountId?: string;
  /** @defaultValue `silentLogger` */
  logger?: HeraldLogger;
  /** Sees every delivery's ticket (metrics, tests). */
  onTicket?(ticket: ReceiveTicket, source: ReceiveSource): void;
  /** Sees every outcome with the account it was delivered for (metrics). */
  onOutcome?(outcome: ReceiveOutcome, source: ReceiveSource): void;
  /** A watermark followed a restart of the platform's id sequence (metrics). */
  onWatermarkRestart?(restart: WatermarkRestart): void;
};

/**
 * Builds the sink one account's receiver delivers into.
 *
 * @example
 * const sink = createReceiverSinkFor({ receive: runtime.receive, store, channel: "telegram", accountId: "main" });
 */
export function createReceiverSinkFor(options: ReceiverSinkOptions): ReceiverSink {
  const logger = options.logger ?? silentLogger;
  const keyOf = (source: string | undefined): WatermarkKey => ({
    channel: options.channel,
    ...(options.accountId === undefined ? {} : { accountId: options.accountId }),
    ...(source ? { source } : {}),
  });
  return {
    receive(raw, source = {}) {
      const accountId = source.accountId ?? options.accountId;
      const full: ReceiveSource = {
        ...source,
        channel: options.channel,
        ...(accountId === undefined ? {} : { accountId }),
      };
      const ticket = options.receive(raw, full);
      options.onTicket?.(ticket, full);
      if (options.onOutcome) void ticket.done.then((o) => options.onOutcome?.(o, full));
      return ticket;
    },
    watermark: (source) =>
      createWatermarkTracker({
        store: options.store,
        key: keyOf(source),
        logger,
        ...(options.onWatermarkRestart ? { onRestart: options.onWatermarkRestart } : {}),
      }),
    cursor: (source) => createCursorTracker({ store: options.store, key: keyOf(source), logger }),
    logger,
  };
}
