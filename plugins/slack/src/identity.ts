/**
 * The bot's identity as the adapter holds it: given by the account (read with `auth.test`
 * before the first event), or read once on first need when the adapter was built without one.
 *
 * @module
 */
import type { WebClient } from "@slack/web-api";
import { readIdentity, type SlackIdentity } from "./account.ts";

/** Holds the identity of one account; {@link get} reads it with `auth.test` at most once. */
export class IdentityCell {
  #known: SlackIdentity | undefined;
  #pending: Promise<SlackIdentity> | undefined;
  readonly #client: WebClient;

  constructor(client: WebClient, known?: SlackIdentity) {
    this.#client = client;
    this.#known = known;
  }

  /** The identity if known, without a call. */
  get known(): SlackIdentity | undefined {
    return this.#known;
  }

  /** The identity; a failed read is retried on the next call. */
  async get(): Promise<SlackIdentity> {
    if (this.#known) return this.#known;
    this.#pending ??= readIdentity(this.#client).then(
      (id) => {
        this.#known = id;
        return id;
      },
      (error: unknown) => {
        this.#pending = undefined;
        throw error;
      },
    );
    return this.#pending;
  }
}
