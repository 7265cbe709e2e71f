/**
 * The in-process registry of messages this runtime holds the dedupe lease of (or is about to
 * acquire). A duplicate arriving meanwhile parks on it instead of asking the store, merges its
 * event flags in, and takes over if the lease is released.
 *
 * This is an optimization on top of the store's lease, never the guard itself: across
 * processes the lease in the {@link MessageStateStore} decides (DESIGN §11).
 *
 * @module
 */
import type { MessageEventClass } from "../adapter/receive.ts";
import type { DedupeKey } from "../state/types.ts";
import type { AckGate } from "./ack.ts";

/** How a held message ended, as parked duplicates see it. */
export type InFlightEnd =
  /** Processed or dropped for good: the store says `done`. Duplicates are acknowledged. */
  | "done"
  /** The lease was given back (failure, mention drop) or never won: a duplicate may take over. */
  | "released";

/** One message held by this runtime. */
export type InFlightEntry = {
  readonly key: DedupeKey;
  /** The merged event class; duplicates merge into it in place. */
  readonly event: MessageEventClass;
  readonly ack: AckGate;
  /** Seq of the inbound record once written: from then on the message cannot be lost. */
  recordSeq: number | undefined;
  readonly ended: Promise<InFlightEnd>;
  end(how: InFlightEnd): void;
};

/** Dedupe key as one string (also the receive context id). */
export function dedupeKeyString(key: DedupeKey): string {
  return `${key.channel}/${key.accountId ?? ""}/${key.eventId}`;
}

/** Messages held by this runtime, by {@link dedupeKeyString}. */
export class InFlightRegistry {
  readonly #entries = new Map<string, InFlightEntry>();

  get(key: DedupeKey): InFlightEntry | undefined {
    return this.#entries.get(dedupeKeyString(key));
  }

  /**
   * Registers a message synchronously, before the store is asked, so that a concurrent
   * duplicate in this process parks instead of mistaking our own lease for a stale one.
   */
  register(key: DedupeKey, event: MessageEventClass, ack: AckGate): InFlightEntry {
    const id = dedupeKeyString(key);
    let resolve!: (how: InFlightEnd) => void;
    const ended = new Promise<InFlightEnd>((r) => {
      resolve = r;
    });
    const entry: InFlightEntry = {
      key,
      event,
      ack,
      recordSeq: undefined,
      ended,
      end: (how) => {
        // Unregister first: woken duplicates must find the slot free.
        if (this.#entries.get(id) === entry) this.#entries.delete(id);
        resolve(how);
      },
    };
    this.#entries.set(id, entry);
    return entry;
  }

  get size(): number {
    return this.#entries.size;
  }
}

/**
 * Event classes of messages dropped for want of a mention, kept briefly so that another event
 * type of the same message (Slack `app_mention` after `message`) becomes one turn with merged
 * flags. Bounded; per process; an optimization only.
 */
export class RecentEventClasses {
  readonly #max: number;
  readonly #entries = new Map<string, MessageEventClass>();
  constructor(max = 1024) {
    this.#max = max;
  }
  remember(key: DedupeKey, event: MessageEventClass): void {
    const id = dedupeKeyString(key);
    this.#entries.delete(id);
    this.#entries.set(id, event);
    while (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
  }
  get(key: DedupeKey): MessageEventClass | undefined {
    return this.#entries.get(dedupeKeyString(key));
  }
}
