/**
 * Channel adapters keyed by (channel, accountId) (DESIGN §3 "Accounts"): two bots of one
 * platform never share credentials, echo checks or rate-limit buckets, so every lookup — send,
 * delivery worker, live, receive, turns — names the account it acts for.
 *
 * @module
 */
import { HeraldError, UnknownChannelError } from "../errors.ts";
import { forgetRegistration, recordRegistration } from "./registration.ts";
import type { ChannelMessageAdapter } from "./types.ts";

/**
 * One adapter registration: either a bare adapter (serves every account of its channel that has
 * no adapter of its own — the single-bot case) or an adapter bound to one account.
 */
export type AdapterRegistration =
  | ChannelMessageAdapter
  | {
      /** The account (bot) this adapter acts as, e.g. `"main"`, a Slack team id. */
      accountId: string;
      adapter: ChannelMessageAdapter;
    };

/** No adapter serves this account of a registered channel (or the account is ambiguous). */
export class UnknownAccountError extends HeraldError {
  readonly channel: string;
  readonly accountId: string | undefined;
  constructor(channel: string, accountId: string | undefined, known: readonly string[]) {
    super(
      "HERALD_UNKNOWN_ACCOUNT",
      accountId === undefined
        ? `channel "${channel}" has several accounts (${known.join(", ")}) and the message names none: set message.accountId`
        : `no adapter for account "${accountId}" of channel "${channel}" is registered (registered: ${known.join(", ") || "none"}); add the account to the config or set message.accountId`,
    );
    this.channel = channel;
    this.accountId = accountId;
  }
}

/**
 * The adapters of one runtime by (channel, accountId).
 *
 * Lookup rule of {@link AdapterRegistry.find}: the adapter registered for exactly that account;
 * else the channel's account-less adapter; else, when no account is named and the channel has
 * exactly one, that one. An adapter bound to account A never serves account B.
 */
export class AdapterRegistry {
  /** channel → accountId ("" for the account-less adapter) → adapter. */
  readonly #byChannel = new Map<string, Map<string, ChannelMessageAdapter>>();

  readonly #redact: ((text: string) => string) | undefined;

  /**
   * @param options.redact - applied to the message of every failure an adapter classifies, so
   *   no stored failure reason holds a secret whatever the adapter forgot (DESIGN §11); the
   *   gateway passes its secret reader's `redact`.
   */
  constructor(
    registrations: readonly AdapterRegistration[] = [],
    options: { redact?: (text: string) => string } = {},
  ) {
    this.#redact = options.redact;
    for (const r of registrations) {
      if ("adapter" in r && "accountId" in r) this.add(r.adapter, r.accountId);
      else this.add(r as ChannelMessageAdapter);
    }
  }

  /**
   * Registers `adapter` for its channel (`adapter.id`) and `accountId` (none: the channel's
   * default). Replaces an earlier registration of the same pair.
   */
  add(adapter: ChannelMessageAdapter, accountId?: string): void {
    let accounts = this.#byChannel.get(adapter.id);
    if (!accounts) {
      accounts = new Map();
      this.#byChannel.set(adapter.id, accounts);
    }
    const key = accountId ?? "";
    const replaced = accounts.get(key);
    const stored = this.#redact ? redacting(adapter, this.#redact) : adapter;
    accounts.set(key, stored);
    if (replaced) this.#forget(accounts, replaced, key);
    recordRegistration(stored, key);
  }

  /** `adapter` no longer serves `key`: it counts as its other registration, if any. */
  #forget(
    accounts: Map<string, ChannelMessageAdapter>,
    adapter: ChannelMessageAdapter,
    key: string,
  ): void {
    forgetRegistration(adapter, key);
    for (const [other, a] of accounts) if (a === adapter) recordRegistration(a, other);
  }

  /** Unregisters one (channel, accountId) pair. @returns whether it was registered */
  remove(channel: string, accountId?: string): boolean {
    const accounts = this.#byChannel.get(channel);
    const stored = accounts?.get(accountId ?? "");
    const removed = accounts?.delete(accountId ?? "") ?? false;
    if (accounts && stored) this.#forget(accounts, stored, accountId ?? "");
    if (accounts && accounts.size === 0) this.#byChannel.delete(channel);
    return removed;
  }

  /** The adapter for (channel, accountId) by the lookup rule, or `undefined`. */
  find(channel: string, accountId?: string): ChannelMessageAdapter | undefined {
    const accounts = this.#byChannel.get(channel);
    if (!accounts) return undefined;
    if (accountId !== undefined) return accounts.get(accountId) ?? accounts.get("");
    const only = accounts.size === 1 ? [...accounts.values()][0] : undefined;
    return accounts.get("") ?? only;
  }

  /**
   * The adapter for (channel, accountId).
   * @throws UnknownChannelError when the channel has no adapter at all
   * @throws UnknownAccountError when none serves that account (or several could and none is named)
   */
  get(channel: string, accountId?: string): ChannelMessageAdapter {
    const found = this.find(channel, accountId);
    if (found) return found;
    const accounts = this.#byChannel.get(channel);
    if (!accounts) throw new UnknownChannelError(channel, this.channels());
    throw new UnknownAccountError(channel, accountId, this.accounts(channel));
  }

  /** Every registered adapter, once each. */
  list(): ChannelMessageAdapter[] {
    const all = new Set<ChannelMessageAdapter>();
    for (const accounts of this.#byChannel.values()) for (const a of accounts.values()) all.add(a);
    return [...all];
  }

  /** Channel ids with at least one adapter. */
  channels(): string[] {
    return [...this.#byChannel.keys()];
  }

  /** Account ids registered for `channel` (the account-less adapter is not listed). */
  accounts(channel: string): string[] {
    return [...(this.#byChannel.get(channel)?.keys() ?? [])].filter((a) => a !== "");
  }
}

/** `adapter` with every classified failure's message passed through `redact`. */
function redacting(
  adapter: ChannelMessageAdapter,
  redact: (text: string) => string,
): ChannelMessageAdapter {
  const { send } = adapter;
  return {
    ...adapter,
    send: {
      ...send,
      classifyError: (error, ctx) => {
        const failure = send.classifyError(error, ctx);
        return { ...failure, message: redact(failure.message) };
      },
    },
  };
}
