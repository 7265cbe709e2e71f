/**
 * A scripted fake chat platform for core's delivery tests: visible state (messages per chat with
 * their current text), native idempotency by key when enabled, sliding-window rate limits that
 * answer 429 (+ retry-after unless a limit is declared without it), optionally rate-limit headers
 * on every answer (`remaining`, `resetAfterMs`, `bucket`, like Discord's `X-RateLimit-*`), and
 * fault injection — fail the next N calls with a status, refuse
 * the connection (`not_dispatched`), store the message and then drop the answer (`maybe_sent`),
 * or accept a send and answer without a message id. It also shows typing indicators and native
 * streams (a message that grows by appends until it is finished), for live tests.
 *
 * The same state serves in-process adapters and, through {@link serveFakePlatform}, adapters in
 * child processes that are SIGKILLed mid-send.
 *
 * @module
 */

/** A message as the platform shows it. */
export type VisibleMessage = {
  id: string;
  chat: string;
  thread?: string;
  text: string;
  key?: string;
  deleted?: boolean;
  /** A native stream that was begun and not finished yet. */
  streaming?: boolean;
  /** Set on messages a test posted as a user ({@link FakePlatform.postAsUser}). */
  author?: string;
  /** Epoch ms (platform clock) when the platform stored it. */
  storedAt?: number;
};

/** One scripted fault, consumed by the next matching call. */
export type Fault =
  | { type: "refuse" }
  | { type: "accept-then-drop" }
  /** The call succeeds (a send stores its message) but the answer carries no message id. */
  | { type: "omit-id" }
  /**
   * The client gives up (a timeout: `maybe_sent`) while the platform stores the send late,
   * `delayMs` after the call (platform clock): until then lookups do not see it.
   */
  | { type: "store-late"; delayMs: number }
  | { type: "status"; status: number; code?: string; retryAfterS?: number; description?: string }
  /**
   * A send answered with the message id of the previous send, and not stored (CASES C40: a
   * cache or proxy replaying an earlier answer, a server that reuses a transaction's result, a
   * misbehaving homeserver). The id is real, but another unit's.
   */
  | { type: "repeat-id" };

/** A platform call. */
export type PlatformCall =
  | { op: "send"; chat: string; thread?: string; text: string; key?: string }
  /** With `idempotent`, an edit or delete whose `key` was applied before is not applied again. */
  | { op: "edit"; id: string; text: string; key?: string }
  | { op: "delete"; id: string; key?: string }
  | { op: "find"; key: string }
  /** Shows (`on`) or hides a typing indicator; shown, it lapses after `typingLapseMs`. */
  | { op: "typing"; chat: string; thread?: string; on: boolean }
  | { op: "stream_begin"; chat: string; thread?: string; text: string; key?: string }
  | { op: "stream_append"; id: string; text: string }
  /**
   * Finishes a stream (idempotent), replacing its text when `text` is given, or appending
   * `append` to it while it still streams (like Slack's `chat.stopStream` with `markdown_text`).
   */
  | { op: "stream_finish"; id: string; text?: string; append?: string };

/** Rate-limit headers of an answer: the tightest limit covering the call. Durations in ms. */
export type FakeRateLimitHeaders = { remaining: number; resetAfterMs: number; bucket: string };

/** What a call answers. */
export type PlatformAnswer = {
  id?: string;
  found?: VisibleMessage | null;
  /** With `reportLimits`: the rate-limit headers of the answer. */
  rateLimit?: FakeRateLimitHeaders;
};

/** A sliding-window limit the fake enforces with 429s. */
export type FakePlatformLimit = {
  scope: "global" | "chat";
  limit: number;
  /** Window length in ms. */
  intervalMs: number;
  /** Only these calls count (e.g. `["send"]`: a per-method tier). @defaultValue every message call */
  ops?: Array<PlatformCall["op"]>;
  /** Send a retry-after with the 429 (Google Chat sends none). @defaultValue true */
  retryAfter?: boolean;
};

/** The error a fake call throws; adapters classify it like a real SDK error. */
export class FakePlatformError extends Error {
  /** HTTP-like status, or 0 for a transport failure. */
  readonly status: number;
  readonly code: string | undefined;
  readonly retryAfterS: number | undefined;
  /** False when the request provably never reached the platform. */
  readonly dispatched: boolean;
  /** With `reportLimits`: the rate-limit headers of the error answer. */
  readonly rateLimit: FakeRateLimitHeaders | undefined;
  constructor(
    status: number,
    message: string,
    opts: {
      code?: string | undefined;
      retryAfterS?: number | undefined;
      dispatched: boolean;
      rateLimit?: FakeRateLimitHeaders | undefined;
    },
  ) {
    super(message);
    this.name = "FakePlatformError";
    this.status = status;
    this.code = opts.code;
    this.retryAfterS = opts.retryAfterS;
    this.dispatched = opts.dispatched;
    this.rateLimit = opts.rateLimit;
  }
}

/** Options of {@link FakePlatform}. */
export type FakePlatformOptions = {
  /** Deduplicate sends by `key` (like Discord nonces or Matrix txnIds). @defaultValue false */
  idempotent?: boolean;
  /** Sliding-window limits enforced with 429s. */
  limits?: FakePlatformLimit[];
  /** Answer every limited call with rate-limit headers (`PlatformAnswer.rateLimit`). @defaultValue false */
  reportLimits?: boolean;
  /** @defaultValue Date.now */
  clock?: () => number;
  /** How long a shown typing indicator stays up, in ms (Telegram: 5 s). @defaultValue 5_000 */
  typingLapseMs?: number;
  /**
   * Threads have names of their own, as on Google Chat (`spaces/S/threads/T` is not a message
   * name): the thread under message `M` is {@link FakePlatform.threadUnder}`(M)` = `thread-M`,
   * and a send into anything else (a message id, say) fails 400 `invalid_thread`. Otherwise a
   * thread is named by its root message's id (Slack `thread_ts`, Matrix).
   * @defaultValue false
   */
  namedThreads?: boolean;
  /**
   * With `idempotent`: a key is deduplicated only this long after its message was stored, in ms
   * (Discord nonces: minutes). @defaultValue unlimited
   */
  idempotencyWindowMs?: number;
};

/** A time-based outage: every matching call until `untilMs` answers `status`. */
export type Outage = {
  op: PlatformCall["op"] | "any";
  /** Epoch ms (platform clock) when it ends. */
  untilMs: number;
  /** HTTP-like status, e.g. 503. */
  status: number;
  /** Apply the call before answering the error (the platform stored it anyway). @defaultValue false */
  store?: boolean;
};

/** The fake platform's state and rules. */
export class FakePlatform {
  readonly messages: VisibleMessage[] = [];
  /** The messages by id and by idempotency key (every lookup a call makes; `messages` grows). */
  readonly #byId = new Map<string, VisibleMessage>();
  readonly #byKey = new Map<string, VisibleMessage[]>();
  /** Every call attempted, in order (for diagnostics; tests assert visible state). */
  readonly calls: Array<PlatformCall & { at: number; outcome: string }> = [];
  readonly #faults: Array<{ op: PlatformCall["op"] | "any"; fault: Fault }> = [];
  readonly #sentAt = new Map<string, number[]>();
  readonly #typingUntil = new Map<string, number>();
  readonly #options: FakePlatformOptions;
  readonly #outages: Outage[] = [];
  readonly #late: Array<{ at: number; call: PlatformCall }> = [];
  /** Answers of keyed edits and deletes already applied (Matrix txnIds: the same event back). */
  readonly #appliedKeys = new Map<string, PlatformAnswer>();
  #nextId = 1;
  /** The id the last send was answered with (the `repeat-id` fault answers it again). */
  #lastSendId: string | undefined;
  /** Number of 429 answers given. */
  rateLimited = 0;

  constructor(options: FakePlatformOptions = {}) {
    this.#options = options;
  }

  /** Scripts `fault` for the next `times` calls of `op`. */
  failNext(fault: Fault, times = 1, op: PlatformCall["op"] | "any" = "any"): this {
    for (let i = 0; i < times; i++) this.#faults.push({ op, fault });
    return this;
  }

  /** Answers every call of `outage.op` with `outage.status` until `outage.untilMs`. */
  outage(outage: Outage): this {
    this.#outages.push(outage);
    return this;
  }

  /** Posts a message as a user (not through the adapter), e.g. to anchor a thread on it. */
  postAsUser(p: { chat: string; text: string; thread?: string; author?: string }): VisibleMessage {
    const message: VisibleMessage = {
      id: String(this.#nextId++),
      chat: p.chat,
      text: p.text,
      author: p.author ?? "user",
      ...(p.thread ? { thread: p.thread } : {}),
    };
    this.#store(message);
    return message;
  }

  #store(message: VisibleMessage): void {
    this.messages.push(message);
    this.#byId.set(message.id, message);
    if (message.key !== undefined) {
      const same = this.#byKey.get(message.key);
      if (same) same.push(message);
      else this.#byKey.set(message.key, [message]);
    }
  }

  /** The id of the thread under message `messageId` (see `namedThreads`). */
  threadUnder(messageId: string): string {
    return this.#options.namedThreads ? `thread-${messageId}` : messageId;
  }

  /** Visible (not deleted) messages of a chat, in order. */
  visible(chat?: string): VisibleMessage[] {
    this.#storeLate((this.#options.clock ?? Date.now)());
    return this.messages.filter((m) => !m.deleted && (chat === undefined || m.chat === chat));
  }

  /** Whether a typing indicator is visible in `chat` now. */
  isTyping(chat: string): boolean {
    return (this.#typingUntil.get(chat) ?? 0) > (this.#options.clock ?? Date.now)();
  }

  /** Applies a call; throws {@link FakePlatformError} on a fault. */
  call(call: PlatformCall): PlatformAnswer {
    const at = (this.#options.clock ?? Date.now)();
    this.#storeLate(at);
    const log = (outcome: string) => this.calls.push({ ...call, at, outcome });
    const outage = this.#outages.find(
      (o) => at < o.untilMs && (o.op === "any" || o.op === call.op),
    );
    if (outage) {
      if (outage.store) this.#apply(call, at);
      log(`status ${outage.status}${outage.store ? " (stored)" : ""}`);
      throw new FakePlatformError(outage.status, `HTTP ${outage.status} (outage)`, {
        code: `http_${outage.status}`,
        dispatched: outage.status >= 500,
      });
    }
    const i = this.#faults.findIndex((f) => f.op === "any" || f.op === call.op);
    const scripted = i >= 0 ? this.#faults.splice(i, 1)[0]?.fault : undefined;
    if (scripted?.type === "store-late") {
      this.#late.push({ at: at + scripted.delayMs, call });
      log(`timed out; stored at +${scripted.delayMs} ms`);
      throw new FakePlatformError(0, "request timed out (ETIMEDOUT)", {
        code: "ETIMEDOUT",
        dispatched: true,
      });
    }
    if (scripted?.type === "refuse") {
      log("refused");
      throw new FakePlatformError(0, "connect ECONNREFUSED 127.0.0.1", {
        code: "ECONNREFUSED",
        dispatched: false,
      });
    }
    if (scripted?.type === "status") {
      log(`status ${scripted.status}`);
      throw new FakePlatformError(
        scripted.status,
        scripted.description ?? `HTTP ${scripted.status}`,
        {
          code: scripted.code,
          retryAfterS: scripted.retryAfterS,
          dispatched: scripted.status >= 500,
        },
      );
    }
    if (scripted?.type === "repeat-id" && call.op === "send" && this.#lastSendId !== undefined) {
      log(`ok, answered with message ${this.#lastSendId} again`);
      return { id: this.#lastSendId };
    }
    let headers: FakeRateLimitHeaders | undefined;
    if (call.op !== "find" && call.op !== "typing") {
      const verdict = this.#limit(call, at);
      headers = this.#options.reportLimits ? verdict.headers : undefined;
      if (verdict.wait > 0) {
        this.rateLimited += 1;
        log("429");
        throw new FakePlatformError(429, "Too Many Requests", {
          code: "rate_limited",
          retryAfterS: verdict.retryAfter ? Math.ceil(verdict.wait / 1000) : undefined,
          dispatched: false,
          rateLimit: headers,
        });
      }
    }
    let answer: PlatformAnswer;
    try {
      answer = this.#apply(call, at);
      if (call.op === "send" && answer.id !== undefined) this.#lastSendId = answer.id;
    } catch (error) {
      if (error instanceof FakePlatformError) log(`status ${error.status}`);
      throw error;
    }
    if (scripted?.type === "omit-id") {
      log("ok, no id");
      const { id: _dropped, ...withoutId } = answer;
      return withoutId;
    }
    if (scripted?.type === "accept-then-drop") {
      log("accepted, answer dropped");
      throw new FakePlatformError(0, "socket hang up (ECONNRESET)", {
        code: "ECONNRESET",
        dispatched: true,
      });
    }
    log("ok");
    return headers ? { ...answer, rateLimit: headers } : answer;
  }

  /** Applies the late stores whose time has come. */
  #storeLate(now: number): void {
    for (let i = 0; i < this.#late.length; ) {
      const late = this.#late[i] as { at: number; call: PlatformCall };
      if (late.at > now) {
        i += 1;
        continue;
      }
      this.#late.splice(i, 1);
      this.#apply(late.call, late.at);
    }
  }

  #limit(
    call: PlatformCall,
    at: number,
  ): { wait: number; retryAfter: boolean; headers: FakeRateLimitHeaders | undefined } {
    const chat =
      "chat" in call ? call.chat : (this.#byId.get((call as { id: string }).id)?.chat ?? "");
    const applicable = (this.#options.limits ?? [])
      .map((l, i) => ({ l, key: `${i}:${l.scope === "global" ? "global" : `chat:${chat}`}` }))
      .filter(({ l }) => !l.ops || l.ops.includes(call.op));
    let wait = 0;
    let retryAfter = true;
    for (const { l, key } of applicable) {
      const times = (this.#sentAt.get(key) ?? []).filter((t) => t > at - l.intervalMs);
      this.#sentAt.set(key, times);
      if (times.length >= l.limit) {
        const w = (times[0] ?? at) + l.intervalMs - at;
        if (w > wait) retryAfter = l.retryAfter !== false;
        wait = Math.max(wait, w);
      }
    }
    if (wait === 0) for (const { key } of applicable) this.#sentAt.get(key)?.push(at);
    let headers: FakeRateLimitHeaders | undefined;
    for (const { l, key } of applicable) {
      const times = this.#sentAt.get(key) ?? [];
      const remaining = Math.max(0, l.limit - times.length);
      const resetAfterMs = times.length > 0 ? (times[0] ?? at) + l.intervalMs - at : 0;
      if (!headers || remaining < headers.remaining) {
        headers = { remaining, resetAfterMs, bucket: key.slice(key.indexOf(":") + 1) };
      }
    }
    return { wait, retryAfter, headers };
  }

  /** Refuses a thread that is not one on a `namedThreads` platform (Google Chat's 400). */
  #checkThread(chat: string, thread: string | undefined): void {
    if (!this.#options.namedThreads || thread === undefined) return;
    const root = thread.startsWith("thread-") ? thread.slice("thread-".length) : undefined;
    if (root !== undefined && this.#byId.get(root)?.chat === chat) return;
    throw new FakePlatformError(400, `invalid thread resource name: ${thread}`, {
      code: "invalid_thread",
      dispatched: false,
    });
  }

  #find(id: string, what: string): VisibleMessage {
    const m = this.#byId.get(id);
    if (!m || m.deleted)
      throw new FakePlatformError(404, `message to ${what} not found`, {
        code: "not_found",
        dispatched: false,
      });
    return m;
  }

  #apply(call: PlatformCall, at: number): PlatformAnswer {
    if ((call.op === "edit" || call.op === "delete") && call.key && this.#options.idempotent) {
      const seen = this.#appliedKeys.get(`${call.op}:${call.key}`);
      if (seen) return seen;
      const answer = this.#applyOnce(call, at);
      this.#appliedKeys.set(`${call.op}:${call.key}`, answer);
      return answer;
    }
    return this.#applyOnce(call, at);
  }

  #applyOnce(call: PlatformCall, at: number): PlatformAnswer {
    switch (call.op) {
      case "typing": {
        if (call.on) this.#typingUntil.set(call.chat, at + (this.#options.typingLapseMs ?? 5_000));
        else this.#typingUntil.delete(call.chat);
        return {};
      }
      case "stream_begin": {
        this.#checkThread(call.chat, call.thread);
        const id = String(this.#nextId++);
        this.#store({
          id,
          chat: call.chat,
          text: call.text,
          streaming: true,
          ...(call.thread ? { thread: call.thread } : {}),
          ...(call.key ? { key: call.key } : {}),
        });
        return { id };
      }
      case "stream_append": {
        const m = this.#find(call.id, "append to");
        if (!m.streaming)
          throw new FakePlatformError(409, "message is not streaming", {
            code: "not_streaming",
            dispatched: false,
          });
        m.text += call.text;
        return { id: m.id };
      }
      case "stream_finish": {
        const m = this.#find(call.id, "finish");
        if (call.append !== undefined && m.streaming) m.text += call.append;
        m.streaming = false;
        if (call.text !== undefined) m.text = call.text;
        return { id: m.id };
      }
      case "send": {
        if (this.#options.idempotent && call.key) {
          const windowMs = this.#options.idempotencyWindowMs ?? Number.POSITIVE_INFINITY;
          const existing = this.#byKey
            .get(call.key)
            ?.find((m) => at - (m.storedAt ?? at) < windowMs);
          if (existing) return { id: existing.id };
        }
        this.#checkThread(call.chat, call.thread);
        const id = String(this.#nextId++);
        this.#store({
          id,
          chat: call.chat,
          text: call.text,
          storedAt: at,
          ...(call.thread ? { thread: call.thread } : {}),
          ...(call.key ? { key: call.key } : {}),
        });
        return { id };
      }
      case "edit": {
        const m = this.#find(call.id, "edit");
        if (m.text === call.text)
          throw new FakePlatformError(400, "message is not modified", {
            code: "not_modified",
            dispatched: false,
          });
        m.text = call.text;
        return { id: m.id };
      }
      case "delete": {
        const m = this.#find(call.id, "delete");
        m.deleted = true;
        return { id: m.id };
      }
      case "find":
        return { found: this.#byKey.get(call.key)?.find((m) => !m.deleted) ?? null };
    }
  }
}
