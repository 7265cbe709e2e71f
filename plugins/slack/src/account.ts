/**
 * Who a Slack bot is (DESIGN §8 "Accounts", [H15]): `auth.test` before the first event is
 * classified gives the bot user id, bot id, team id and app id, so own echoes are recognised
 * from the first event (C10) and a revoked or wrong token stops this account at start with an
 * error naming the variable and the fix (instead of retrying `invalid_auth` forever).
 *
 * Source: https://docs.slack.dev/reference/methods/auth.test
 *
 * @module
 */
import {
  ChannelAccountError,
  type ChannelPluginDeps,
  isMalformedSecretError,
  readSecret,
} from "@herald/plugin-sdk/channel-message";
import type { WebClient } from "@slack/web-api";
import { createSlackClient } from "./client.ts";
import { type SlackConfig, slackSecrets } from "./config.ts";
import { classifyError, redactTokens } from "./errors.ts";

/** The channel id herald uses for Slack. */
export const SLACK_CHANNEL_ID = "slack";

/** The bot's identity in one workspace, from `auth.test` (Slack's own ids). */
export type SlackIdentity = {
  /** The bot user's id (`U…`): what `<@U…>` mentions and `user` on its messages. */
  userId: string;
  /** The bot id (`B…`): `bot_id` on its messages. */
  botId: string;
  /** The workspace (`T…`). */
  teamId: string;
  /** The app (`A…`): `app_id` on its messages; absent when Slack does not say. */
  appId?: string;
  /** The bot user's name. */
  userName?: string;
  /** The workspace's URL (`https://acme.slack.com/`), for permalinks. */
  url?: string;
};

/**
 * Calls `auth.test` (and `bots.info` when `auth.test` names no app) with `client`.
 *
 * @throws the SDK's error (classify it with `classifyError`) when Slack refuses or is unreachable.
 * @throws TypeError when Slack's answer lacks the bot's user, bot or team id (not a bot token).
 */
export async function readIdentity(client: WebClient): Promise<SlackIdentity> {
  const me = await client.auth.test();
  if (!me.user_id || !me.team_id || !me.bot_id) {
    throw new TypeError(
      "auth.test did not name a bot user, bot id and team: the token must be a bot token (xoxb-…)",
    );
  }
  let appId = me.app_id;
  if (!appId) {
    const info = await client.bots.info({ bot: me.bot_id }).catch(() => undefined);
    appId = info?.bot?.app_id;
  }
  return {
    userId: me.user_id,
    botId: me.bot_id,
    teamId: me.team_id,
    ...(appId ? { appId } : {}),
    ...(me.user ? { userName: me.user } : {}),
    ...(me.url ? { url: me.url } : {}),
  };
}

/** What to do about a rejected token. */
const fixFor = (config: SlackConfig) =>
  `check the bot token in ${config.tokenEnv} (OAuth & Permissions → Bot User OAuth Token, xoxb-…) and slackApiUrl ${config.slackApiUrl}`;

/**
 * The identity of the account, or a {@link ChannelAccountError} when Slack rejects the token
 * (`auth` / `permission`: the gateway stops this account and starts the others).
 *
 * @throws ChannelAccountError for a rejected token; a plain Error for anything else (retried).
 */
export async function identityOrAccountError(
  config: SlackConfig,
  client: WebClient,
  token: string,
  accountId: string,
): Promise<SlackIdentity> {
  try {
    return await readIdentity(client);
  } catch (error) {
    const failure = classifyError(error, [token]);
    if (failure.kind === "auth" || failure.kind === "permission" || error instanceof TypeError) {
      throw new ChannelAccountError(
        SLACK_CHANNEL_ID,
        accountId,
        `Slack rejected the bot token (${failure.message})`,
        fixFor(config),
      );
    }
    throw new Error(`auth.test failed: ${failure.message}`);
  }
}

/**
 * Checks the bot token with `auth.test`, for `herald doctor`. Never returns or logs the token.
 *
 * Source: https://docs.slack.dev/reference/methods/auth.test
 */
export async function checkSlackCredentials(
  config: SlackConfig,
  deps: Pick<ChannelPluginDeps, "accountId" | "secret">,
): Promise<{ ok: boolean; detail: string }> {
  let token: string | undefined;
  try {
    token = readSecret(deps, slackSecrets.botToken(config));
    const client = createSlackClient({
      token,
      slackApiUrl: config.slackApiUrl,
      timeoutMs: config.requestTimeoutMs,
    });
    const me = await readIdentity(client);
    return {
      ok: true,
      detail: `bot ${me.userName ?? me.userId} (user ${me.userId}, bot ${me.botId}) in team ${me.teamId} at ${config.slackApiUrl}`,
    };
  } catch (error) {
    if (isMalformedSecretError(error)) return { ok: false, detail: error.message };
    const failure = classifyError(error, [token]);
    const hint =
      failure.kind === "auth"
        ? `the token in ${config.tokenEnv} was rejected — ${fixFor(config)}`
        : failure.kind === "transient"
          ? `could not reach ${config.slackApiUrl}`
          : "auth.test failed";
    return { ok: false, detail: redactTokens(`${hint}: ${failure.message}`, [token]) };
  }
}
