/**
 * Who we are on Discord, and which messages are ours (PLATFORMS.md §6: Discord carries no
 * message metadata). Own messages are recognised by, in order: the author id (the bot user),
 * the application id (messages sent through our interactions), our own webhooks (a webhook
 * message's author id is the webhook id), and the ids this process created (the outbound
 * registry below; core's own outbound registry covers the other processes). The gateway's
 * `nonce` on MESSAGE_CREATE is a create-time hint only (it is absent on edits and REST reads).
 *
 * @module
 */

/**
 * The bot's user id from its token: a bot token's first segment is the user id in base64
 * (Discord's token format). @returns undefined when the token does not have that shape.
 */
export function userIdOfToken(token: string): string | undefined {
  const head =
    token
      .trim()
      .replace(/^Bot\s+/, "")
      .split(".")[0] ?? "";
  try {
    const id = Buffer.from(head, "base64").toString("utf8");
    return /^\d{15,20}$/.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

/** The bot's identity, known from READY (or the config) — filled in once the gateway is up. */
export class DiscordIdentity {
  #userId: string | undefined;
  #applicationId: string | undefined;
  readonly #webhookIds = new Set<string>();

  constructor(
    init: {
      userId?: string | undefined;
      applicationId?: string | undefined;
      webhookIds?: readonly string[] | undefined;
    } = {},
  ) {
    this.#userId = init.userId;
    this.#applicationId = init.applicationId;
    for (const id of init.webhookIds ?? []) this.#webhookIds.add(id);
  }

  /** Sets the bot's user id and application id (READY's `user.id` and `application.id`). */
  set(userId: string, applicationId?: string): void {
    this.#userId = userId;
    if (applicationId) this.#applicationId = applicationId;
  }

  /** Adds a webhook this bot owns (its messages are ours). */
  addWebhook(id: string): void {
    this.#webhookIds.add(id);
  }

  get userId(): string | undefined {
    return this.#userId;
  }

  get applicationId(): string | undefined {
    return this.#applicationId;
  }

  /** Every id naming us: the user id, the application id, our webhooks. */
  ids(): string[] {
    return [
      ...(this.#userId ? [this.#userId] : []),
      ...(this.#applicationId && this.#applicationId !== this.#userId ? [this.#applicationId] : []),
      ...this.#webhookIds,
    ];
  }
}

/**
 * Message ids this process created, most recent first kept (bounded). Keys are
 * `<channel_id>:<message_id>`.
 */
export class OutboundRegistry {
  readonly #ids = new Set<string>();
  readonly #max: number;

  /** @param max - ids kept; the oldest are forgotten first. @defaultValue 10_000 */
  constructor(max = 10_000) {
    this.#max = max;
  }

  remember(channel: string, messageId: string): void {
    const key = `${channel}:${messageId}`;
    this.#ids.delete(key);
    this.#ids.add(key);
    if (this.#ids.size > this.#max) {
      const oldest = this.#ids.values().next().value;
      if (oldest !== undefined) this.#ids.delete(oldest);
    }
  }

  has(channel: string, messageId: string): boolean {
    return this.#ids.has(`${channel}:${messageId}`);
  }
}
