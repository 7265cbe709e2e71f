/**
 * Encrypted event hydration (seeds/message-lifecycle.md, Matrix receive adapter): each
 * `m.room.encrypted` event the `/sync` receiver hands over is decrypted **before** it reaches
 * herald, so `normalize` sees the clear `m.room.message` (or edit, or anything else) with the
 * same event id, sender and room — herald's dedupe identity `<roomId>:<eventId>` is the same
 * before and after decryption.
 *
 * An event whose room key has not arrived yet (keys travel as to-device messages, often a
 * `/sync` later than the event) **waits**: it is tried again after every `/sync` the engine
 * processed, and at the latest every `retryMs`, until `waitMs` has passed; then it is handed
 * over as undecryptable (`undecryptable: { code, message }`), which `normalize` dead-letters
 * with `MatrixDecryptionError` (`HERALD_MATRIX_UNDECRYPTABLE`) — never dropped. A failure the
 * key cannot fix (a withheld key), and the bot's own event it cannot open (`normalize` ignores
 * it, as every own event), are handed over at once.
 *
 * Events of one room are handed over in timeline order: an event behind one that waits waits
 * too. An event id being hydrated or hydrated recently (a redelivery, a back-fill overlapping
 * the timeline; the newest {@link RECENT_EVENTS}) shares the first one's result — one
 * decryption, dedupe by event id before decrypting — and herald's dedupe by the same id drops
 * the second delivery after it: an event is never handled twice.
 *
 * @module
 */
import type { ChannelReceiverSink } from "@herald/plugin-sdk/channel-message";
import type { MatrixE2ee } from "./e2ee.ts";

/** How many hydrated encrypted events are remembered by event id (a redelivery is not decrypted again). */
export const RECENT_EVENTS = 512;

/** Options of {@link createHydrator}. */
export type HydratorOptions = {
  /** The engine; absent: encrypted events pass through (and are refused by `normalize`). */
  e2ee: (() => Promise<MatrixE2ee>) | undefined;
  /** Longest wait for a late room key, in ms (`encryption.decryptWaitMs`). */
  waitMs: number;
  /**
   * The bot's user id: its own events are never waited for (their keys are this store's; one it
   * cannot open — a store restored from an older backup — is handed over at once and ignored).
   */
  selfId?: string | undefined;
  /** Longest pause between two tries while waiting, in ms. @defaultValue 5_000 */
  retryMs?: number;
  logger: Pick<ChannelReceiverSink["logger"], "info" | "warn">;
  /** Epoch-ms clock. @defaultValue Date.now */
  clock?: () => number;
};

type Inbound = { room_id?: unknown; event?: Record<string, unknown> };

/**
 * What {@link Hydrator.hydrate} answers for an event still waiting when the receiver stopped:
 * nothing is handed over (its batch stays unfinished, so the cursor does not pass it and the
 * next start fetches it again) — a shutdown never dead-letters an event.
 */
export const ABANDONED: unique symbol = Symbol("matrix.hydrate.abandoned");

/** Hydrates inbound events (see the module docs). */
export type Hydrator = {
  /** The raw to hand herald for `raw`: decrypted, undecryptable, or `raw` itself. */
  hydrate(raw: unknown, signal: AbortSignal): Promise<unknown>;
  /** Events decrypted, waited for, and dead-lettered so far. */
  counters(): { decrypted: number; waited: number; undecryptable: number };
};

/** Creates the hydrator of one receiver. */
export function createHydrator(options: HydratorOptions): Hydrator {
  const clock = options.clock ?? Date.now;
  const retryMs = options.retryMs ?? 5_000;
  const chains = new Map<string, Promise<unknown>>();
  const inFlight = new Map<string, Promise<unknown>>();
  const recent = new Map<string, unknown>();
  const counters = { decrypted: 0, waited: 0, undecryptable: 0 };

  const decrypt = async (input: Inbound, signal: AbortSignal): Promise<unknown> => {
    const roomId = String(input.room_id);
    const event = input.event as Record<string, unknown>;
    let engine: MatrixE2ee;
    try {
      engine = await (options.e2ee as () => Promise<MatrixE2ee>)();
    } catch (error) {
      counters.undecryptable += 1;
      const message = error instanceof Error ? error.message : String(error);
      options.logger.warn({ roomId, err: message }, "matrix: the crypto store could not be opened");
      return { ...input, undecryptable: { code: "CRYPTO_UNAVAILABLE", message } };
    }
    const deadline = clock() + options.waitMs;
    let waited = false;
    for (;;) {
      const result = await engine.decrypt(roomId, event);
      if (result.ok) {
        counters.decrypted += 1;
        if (waited) {
          options.logger.info(
            { roomId, eventId: event.event_id },
            "matrix: a late room key arrived: event decrypted",
          );
        }
        return {
          ...input,
          event: { ...event, type: result.type, content: result.content },
          encrypted: {
            algorithm: (event.content as { algorithm?: unknown } | undefined)?.algorithm,
            ...(result.sessionId !== undefined ? { session_id: result.sessionId } : {}),
          },
        };
      }
      if (signal.aborted) return ABANDONED;
      const left = deadline - clock();
      const own = options.selfId !== undefined && event.sender === options.selfId;
      if (!result.retryable || left <= 0 || own) {
        counters.undecryptable += 1;
        options.logger.warn(
          { roomId, eventId: event.event_id, code: result.code, waited },
          "matrix: an encrypted event could not be decrypted: dead-lettered",
        );
        return { ...input, undecryptable: { code: result.code, message: result.message } };
      }
      if (!waited) {
        waited = true;
        counters.waited += 1;
        options.logger.info(
          { roomId, eventId: event.event_id, code: result.code, waitMs: options.waitMs },
          "matrix: room key not here yet: waiting for it",
        );
      }
      await engine.waitForKeys(Math.min(left, retryMs), signal);
    }
  };

  return {
    counters: () => ({ ...counters }),
    hydrate(raw, signal) {
      const input = raw as Inbound;
      const roomId = typeof input?.room_id === "string" ? input.room_id : undefined;
      if (roomId === undefined || typeof input.event !== "object" || input.event === null) {
        return Promise.resolve(raw);
      }
      const eventId = String(input.event.event_id);
      const encrypted = input.event.type === "m.room.encrypted" && options.e2ee !== undefined;
      const running = encrypted ? inFlight.get(eventId) : undefined;
      if (running) return running;
      // The redelivery of a recent encrypted event: its hydrated self, not a second decryption.
      const key = `${roomId}|${eventId}`;
      if (encrypted && recent.has(key)) return Promise.resolve(recent.get(key));
      const previous = chains.get(roomId) ?? Promise.resolve();
      const result = previous.then(() => (encrypted ? decrypt(input, signal) : raw));
      const settled = result.catch(() => {});
      chains.set(roomId, settled);
      if (encrypted) {
        inFlight.set(eventId, result);
        void result.then(
          (ready) => {
            inFlight.delete(eventId);
            if (ready === ABANDONED) return;
            recent.set(key, ready);
            if (recent.size > RECENT_EVENTS) recent.delete(recent.keys().next().value as string);
          },
          () => inFlight.delete(eventId),
        );
      }
      void settled.then(() => {
        if (chains.get(roomId) === settled) chains.delete(roomId);
      });
      return result;
    },
  };
}
