/**
 * The fake's update queue, with the Bot API's delivery semantics: `getUpdates(offset)` confirms
 * (drops) every update below `offset`, returns the rest at once, or long-polls up to `timeout`
 * seconds for a new one; while a webhook is set, updates are POSTed to it instead (retried on a
 * non-2xx answer) and `getUpdates` answers 409.
 *
 * Offsets follow the reference server (tdlib/telegram-bot-api `Client::do_get_updates` over
 * td's `TQueue::get`, PLATFORMS.md §9): an `offset` up to the next update id + 10 confirms and
 * deletes every update below it — also ones that arrive later under it; a larger one is "in the
 * future": the answer starts at the oldest kept update and nothing is confirmed; a negative
 * `offset` -N keeps only the last N updates. With {@link UpdateQueue.answerAtOnce} the queue
 * answers `[]` at once instead of holding the long poll, as an emulator or a proxy may (C42).
 *
 * Not modelled: the reference server raises the `timeout` of a repeated short poll (same offset
 * within 3 s) to 3 s and its `limit` to 1 within 0.5 s (`Client::process_get_updates_query`).
 *
 * Source: https://core.telegram.org/bots/api#getting-updates
 *
 * @module
 */

/** A queued update (JSON, as the Bot API sends it). */
export type FakeUpdate = { update_id: number; [kind: string]: unknown };

/** Where a webhook delivery goes: an in-process handler (the receiver's `webhook`). */
export type FakeWebhook = {
  handler: (request: Request) => Promise<Response>;
  /** The `secret_token` Telegram sends in `X-Telegram-Bot-Api-Secret-Token`. */
  secretToken?: string | undefined;
};

/** The update queue of one bot. */
export class UpdateQueue {
  readonly #pending: FakeUpdate[] = [];
  readonly #waiters = new Set<() => void>();
  #nextId: number;
  #confirmedBelow = 0;
  #webhook: FakeWebhook | undefined;
  /** Every update ever queued, by id (for redelivery). */
  readonly #all = new Map<number, FakeUpdate>();
  /** What the bot registered with `setWebhook` (the fake delivers only to `connectWebhook`). */
  registered: { url: string; secretToken?: string } | undefined;
  /** Webhook deliveries, oldest first: update id and the HTTP status the bot answered. */
  readonly deliveries: Array<{ updateId: number; status: number }> = [];
  /**
   * Answer `getUpdates` at once, `[]` when nothing is queued, whatever its `timeout` (a server
   * that does not hold long polls: an emulator, a proxy; CASES C42). @defaultValue false
   */
  answerAtOnce = false;

  constructor(firstUpdateId = 1) {
    this.#nextId = firstUpdateId;
  }

  /** The offset the bot confirmed: every update below it is gone. */
  get confirmedBelow(): number {
    return this.#confirmedBelow;
  }

  /** Updates not confirmed yet. */
  get pending(): readonly FakeUpdate[] {
    return this.#pending;
  }

  /** Queues an update (`update_id` assigned here unless given) and wakes long polls. */
  push(update: Omit<FakeUpdate, "update_id"> & { update_id?: number }): FakeUpdate {
    const full = { ...update, update_id: update.update_id ?? this.#nextId } as FakeUpdate;
    this.#nextId = Math.max(this.#nextId, full.update_id + 1);
    this.#all.set(full.update_id, full);
    if (this.#webhook) {
      void this.#deliver(this.#webhook, full);
      return full;
    }
    this.#pending.push(full);
    for (const wake of this.#waiters) wake();
    return full;
  }

  /** The update that was queued under `updateId`. */
  get(updateId: number): FakeUpdate | undefined {
    return this.#all.get(updateId);
  }

  /**
   * Restarts the id sequence at `firstUpdateId` (lower than before), as Telegram does after a
   * week without updates ("the identifier of the next update will be chosen randomly"): the
   * old confirmation is forgotten, and an offset above every id issued since confirms nothing.
   */
  restartSequence(firstUpdateId: number): void {
    this.#nextId = firstUpdateId;
    this.#confirmedBelow = 0;
  }

  /** `getUpdates`: confirms below `offset`, then answers or waits up to `timeoutSeconds`. */
  async getUpdates(request: { offset?: number; limit?: number; timeoutSeconds?: number }) {
    const offset = request.offset ?? 0;
    if (offset < 0) {
      // The last -offset updates are kept, every earlier one is forgotten (TQueue::clear).
      this.#pending.splice(0, Math.max(0, this.#pending.length + offset));
    } else if (offset > 0 && offset <= this.#nextId + 10) {
      // Up to the next id + 10: everything below `offset` is confirmed and deleted, including
      // updates that arrived since under it (TQueue::get, forget_previous). Beyond that the
      // offset is "in the future" and confirms nothing.
      this.#confirmedBelow = Math.max(this.#confirmedBelow, offset);
      for (let i = this.#pending.length - 1; i >= 0; i--) {
        if ((this.#pending[i]?.update_id ?? offset) < offset) this.#pending.splice(i, 1);
      }
    }
    const limit = request.limit ?? 100;
    if (this.#pending.length === 0 && (request.timeoutSeconds ?? 0) > 0 && !this.answerAtOnce) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.#waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, (request.timeoutSeconds ?? 0) * 1_000);
        this.#waiters.add(wake);
      });
    }
    return this.#pending.slice(0, limit);
  }

  /** Whether a webhook is set (then `getUpdates` must answer 409). */
  get webhookSet(): boolean {
    return this.#webhook !== undefined;
  }

  /** Sets the webhook: queued and future updates are POSTed to it. */
  setWebhook(webhook: FakeWebhook): void {
    this.#webhook = webhook;
    const queued = this.#pending.splice(0);
    for (const u of queued) void this.#deliver(webhook, u);
  }

  /** Removes the webhook (`deleteWebhook`); updates queue up for `getUpdates` again. */
  deleteWebhook(): void {
    this.#webhook = undefined;
    this.registered = undefined;
  }

  /** Wakes every long poll (used when the server closes). */
  wakeAll(): void {
    for (const wake of [...this.#waiters]) wake();
  }

  async #deliver(webhook: FakeWebhook, update: FakeUpdate, attempt = 1): Promise<void> {
    let status: number;
    try {
      const response = await webhook.handler(
        new Request("http://127.0.0.1/webhook", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(webhook.secretToken
              ? { "x-telegram-bot-api-secret-token": webhook.secretToken }
              : {}),
          },
          body: JSON.stringify(update),
        }),
      );
      status = response.status;
    } catch {
      status = 599;
    }
    this.deliveries.push({ updateId: update.update_id, status });
    if ((status < 200 || status >= 300) && attempt < 5 && this.#webhook === webhook) {
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      await this.#deliver(webhook, update, attempt + 1);
    }
  }
}
