/**
 * Inbound authorization policy per channel and account (DESIGN §5: "`allowBots` /
 * `requireMention` are set per channel and account"). The most specific setting wins:
 * (channel, account) → channel → the runtime-wide value → the default (`false`, today's).
 *
 * @module
 */

/** The inbound policy of one channel account. */
export type InboundPolicy = {
  /** Accept messages authored by other bots (our own are always dropped). */
  allowBots: boolean;
  /** In rooms, dispatch only messages that mention this bot (direct chats never need one). */
  requireMention: boolean;
};

/**
 * An override for one channel (every account) or one account of a channel. Unset fields fall
 * through to the less specific level.
 *
 * @example
 * { channel: "telegram", requireMention: true }                     // every Telegram bot
 * { channel: "telegram", accountId: "support", allowBots: true }   // one of them
 */
export type InboundPolicyOverride = {
  channel: string;
  /** Absent: every account of the channel. */
  accountId?: string;
  allowBots?: boolean;
  requireMention?: boolean;
};

const keyOf = (channel: string, accountId: string | undefined) =>
  JSON.stringify([channel, accountId ?? null]);

/** The overrides of one receive runtime, resolved per message. */
export class InboundPolicies {
  readonly #base: InboundPolicy;
  readonly #overrides = new Map<string, InboundPolicyOverride>();

  constructor(base: Partial<InboundPolicy>, overrides: readonly InboundPolicyOverride[] = []) {
    this.#base = {
      allowBots: base.allowBots ?? false,
      requireMention: base.requireMention ?? false,
    };
    for (const o of overrides) this.set(o);
  }

  /**
   * Sets (merges into) the override of `override.channel` / `override.accountId`.
   * @throws TypeError when `channel` is empty.
   */
  set(override: InboundPolicyOverride): void {
    if (typeof override.channel !== "string" || override.channel.length === 0)
      throw new TypeError("inbound policy override: channel must be a non-empty string");
    const key = keyOf(override.channel, override.accountId);
    const merged: InboundPolicyOverride = { ...this.#overrides.get(key), ...override };
    this.#overrides.set(key, merged);
  }

  /** The policy in effect for (channel, accountId). */
  resolve(channel: string, accountId: string | undefined): InboundPolicy {
    const forChannel = this.#overrides.get(keyOf(channel, undefined));
    const forAccount =
      accountId === undefined ? undefined : this.#overrides.get(keyOf(channel, accountId));
    return {
      allowBots: forAccount?.allowBots ?? forChannel?.allowBots ?? this.#base.allowBots,
      requireMention:
        forAccount?.requireMention ?? forChannel?.requireMention ?? this.#base.requireMention,
    };
  }
}
