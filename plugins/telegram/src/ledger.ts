/**
 * What this process knows about the messages it sent, per chat: the ids it created, and the
 * sends whose outcome is still open (in flight, or unknown after a reset). Telegram cannot tell
 * a bot its own chat history, so this is what the reconciliation probe stands on, and it lets
 * the receive side recognise this bot's own messages (a channel post has no `from`).
 *
 * In memory and per process on purpose: it only vouches for what this process saw. After a
 * restart it is empty, and a probe then has no safe lower bound (the send stays unresolved).
 *
 * @module
 */

/** Ids kept per chat; older ones are forgotten (and probes below them refused). */
const IDS_PER_CHAT = 512;
/** Chats remembered; the least recently used is forgotten. */
const MAX_CHATS = 10_000;

type OpenSend = {
  /** Highest id this process had created in the chat when the send started. */
  floor: number | undefined;
  /** `in_flight` until it failed with an unknown outcome (`unknown`), or landed without an id. */
  state: "in_flight" | "unknown";
};

type ChatRecord = {
  /** Ids created by this process, ascending. */
  ids: number[];
  highest: number | undefined;
  /** Every id at or below this was forgotten. */
  forgottenUpTo: number | undefined;
  open: Map<string, OpenSend>;
  /** A probe met a message of this bot the ledger did not know: no probe is sound here any more. */
  foreign: boolean;
};

/** Why a probe range cannot be given (shown in the intent's failure reason). */
export type ProbeRangeRefusal =
  | "no record of this send in this process (it ran before a restart)"
  | "no earlier message of this bot in this chat since the process started"
  | "another send to this chat is in flight or unresolved"
  | "the ids after the last known message were forgotten"
  | "another sender of this bot was seen in this chat";

/** The outbound ledger of one bot account. */
export class OutboundLedger {
  readonly #chats = new Map<string, ChatRecord>();

  /** A send of `key` to `chat` is about to leave. */
  begin(chat: string, key: string): void {
    const record = this.#record(chat);
    record.open.set(key, { floor: record.highest, state: "in_flight" });
  }

  /** The send landed as message `id`. */
  landed(chat: string, key: string, id: number): void {
    const record = this.#record(chat);
    record.open.delete(key);
    this.#add(record, id);
  }

  /**
   * The send failed: `not_dispatched` closes it; anything else leaves it open as `unknown`
   * (the message may exist), which also blocks probes for other sends to that chat.
   */
  failed(chat: string, key: string, dispatched: boolean): void {
    const record = this.#record(chat);
    if (!dispatched) record.open.delete(key);
    else {
      const open = record.open.get(key);
      if (open) open.state = "unknown";
    }
  }

  /** The send was answered without a message id: it landed, but where is unknown. */
  landedWithoutId(chat: string, key: string): void {
    const open = this.#record(chat).open.get(key);
    if (open) open.state = "unknown";
  }

  /** A send that was given up (cancelled by an operator): it no longer blocks probes. */
  forget(chat: string, key: string): void {
    this.#chats.get(chat)?.open.delete(key);
  }

  /**
   * A probe met message `id` of this bot that this process did not send: another process
   * sends as this bot. Probes in the chat are refused from now on (until a restart).
   */
  sawForeign(chat: string, id: number): void {
    const record = this.#record(chat);
    record.foreign = true;
    this.#add(record, id);
  }

  /** Whether this process created message `id` in `chat`. */
  isOwn(chat: string, id: number): boolean {
    return this.#chats.get(chat)?.ids.includes(id) ?? false;
  }

  /**
   * The ids a probe for the open send `key` may look at: the first `max` ids after the highest
   * id this process had created in the chat when the send started, skipping ids it created
   * since. Refused when that would be unsound: no such id, or another open send in the chat
   * (its message could sit in the range and be taken for this one).
   */
  probeRange(
    chat: string,
    key: string,
    max: number,
  ): { ok: true; ids: number[] } | { ok: false; reason: ProbeRangeRefusal } {
    const record = this.#chats.get(chat);
    const open = record?.open.get(key);
    if (!record || !open)
      return {
        ok: false,
        reason: "no record of this send in this process (it ran before a restart)",
      };
    if (open.floor === undefined)
      return {
        ok: false,
        reason: "no earlier message of this bot in this chat since the process started",
      };
    if (record.foreign)
      return { ok: false, reason: "another sender of this bot was seen in this chat" };
    if ([...record.open.keys()].some((k) => k !== key))
      return { ok: false, reason: "another send to this chat is in flight or unresolved" };
    if (record.forgottenUpTo !== undefined && record.forgottenUpTo > open.floor)
      return { ok: false, reason: "the ids after the last known message were forgotten" };
    const ids: number[] = [];
    for (let id = open.floor + 1; ids.length < max; id++)
      if (!record.ids.includes(id)) ids.push(id);
    return { ok: true, ids };
  }

  #record(chat: string): ChatRecord {
    let record = this.#chats.get(chat);
    if (record) {
      this.#chats.delete(chat); // re-insert: most recently used last
    } else {
      record = {
        ids: [],
        highest: undefined,
        forgottenUpTo: undefined,
        open: new Map(),
        foreign: false,
      };
    }
    this.#chats.set(chat, record);
    if (this.#chats.size > MAX_CHATS) {
      const oldest = this.#chats.keys().next().value;
      if (oldest !== undefined) this.#chats.delete(oldest);
    }
    return record;
  }

  #add(record: ChatRecord, id: number): void {
    if (!record.ids.includes(id)) {
      record.ids.push(id);
      record.ids.sort((a, b) => a - b);
    }
    record.highest = record.highest === undefined ? id : Math.max(record.highest, id);
    while (record.ids.length > IDS_PER_CHAT) {
      const dropped = record.ids.shift() as number;
      record.forgottenUpTo = Math.max(record.forgottenUpTo ?? dropped, dropped);
    }
  }
}
