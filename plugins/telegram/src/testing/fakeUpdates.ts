/**
 * The fake's update queue, with the Bot API's delivery semantics: `getUpdates(offset)` confirms
 * (drops) every update below `offset`, returns the rest at once, or long-polls up to `timeout`
 * seconds for a new one; while a webhook is set, updates are POSTed to it instead (retried on a
 * non-2xx answer) and `getUpdates` answers 409.
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
    if (
      request.offset !== undefined &&
      request.offset > this.#confirmedBelow &&
      request.offset <= this.#nextId
    ) {
      this.#confirmedBelow = request.offset;
      while ((this.#pending[0]?.update_id ?? Number.POSITIVE_INFINITY) < request.offset) {
        this.#pending.shift();
      }
    }
    const limit = request.limit ?? 100;
    if (this.#pending.length === 0 && (request.timeoutSeconds ?? 0) > 0) {
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
