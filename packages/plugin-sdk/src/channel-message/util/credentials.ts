/**
 * The first call of an account — who the bot is (Telegram `getMe`, Slack `auth.test`, Matrix
 * `/whoami`) — and what a rejection of its credentials means: that account stops with the fix
 * ([H27] item 1, one copy).
 *
 * @module
 */
import { ChannelAccountError } from "../account.ts";
import { PlatformApiError } from "./api-error.ts";

/** What {@link verifyCredentials} needs to name the account and the fix. */
export type VerifyCredentialsOptions = {
  /** The channel id, e.g. `httpchat`. */
  channel: string;
  /** The account (`deps.accountId`). */
  accountId: string;
  /** What to do, e.g. "check HTTPCHAT_TOKEN" (name the env var, never the secret). */
  fix: string;
  /** Statuses that mean "these credentials are refused". @defaultValue [401, 403] */
  statuses?: readonly number[];
};

/**
 * Runs `call` (the account's identity call) and returns its answer. A `PlatformApiError` with a
 * refusing status (401, 403) becomes a {@link ChannelAccountError} naming the status and the fix
 * — the gateway stops that account without retrying; anything else (network, 5xx) is rethrown
 * as it is, and the gateway retries it with backoff.
 *
 * @throws ChannelAccountError when the platform refused the credentials; else what `call` threw.
 * @example
 * const me = await verifyCredentials(() => call<Me>("GET /v1/me", { signal: deps.signal }), {
 *   channel: "acme", accountId: deps.accountId, fix: `check ${config.tokenEnv}`,
 * });
 */
export async function verifyCredentials<T>(
  call: () => Promise<T>,
  options: VerifyCredentialsOptions,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const refused = options.statuses ?? [401, 403];
    if (!(error instanceof PlatformApiError && refused.includes(error.status))) throw error;
    throw new ChannelAccountError(
      options.channel,
      options.accountId,
      `the credentials were rejected (${error.status} ${error.platformCode})`,
      options.fix,
      { cause: error },
    );
  }
}
