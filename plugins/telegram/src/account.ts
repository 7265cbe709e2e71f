/**
 * Who a Telegram bot is (DESIGN §8, [H15] 1, [H17] 5): `createTelegramAccount` asks
 * Telegram who the bot is with `getMe` before anything runs, so a wrong token stops this
 * account at start with an error naming the variable, the fix and `herald doctor` (instead of
 * retrying a 401 forever), and the bot's username is known before the first mention check.
 *
 * Source: https://core.telegram.org/bots/api#getme
 *
 * @module
 */
import {
  ChannelAccountError,
  type ChannelPluginDeps,
  isMalformedSecretError,
  readSecret,
} from "@herald/plugin-sdk/channel-message";
import type { UserFromGetMe } from "grammy/types";
import { createTelegramApi, grammySignal } from "./client.ts";
import { type TelegramConfig, telegramSecrets } from "./config.ts";
import { classifyError, redactToken } from "./errors.ts";
import { TELEGRAM_CHANNEL_ID } from "./receive.ts";

/** What to do about a rejected token. */
const fixFor = (config: TelegramConfig) =>
  `check the token in ${config.tokenEnv} with @BotFather (and apiRoot ${config.apiRoot})`;

/** `getMe` with the token of `config`; a rejected token becomes a {@link ChannelAccountError}. */
export async function getMe(
  config: TelegramConfig,
  token: string,
  accountId: string,
  signal?: AbortSignal,
): Promise<UserFromGetMe> {
  try {
    return await createTelegramApi({
      token,
      apiRoot: config.apiRoot,
      timeoutMs: config.requestTimeoutMs,
    }).getMe(signal ? grammySignal(signal) : undefined);
  } catch (error) {
    const failure = classifyError(error, token);
    const message = redactToken(failure.message, token);
    if (failure.kind === "auth" || failure.kind === "not_found")
      throw new ChannelAccountError(
        TELEGRAM_CHANNEL_ID,
        accountId,
        `Telegram rejected the bot token (${message})`,
        fixFor(config),
      );
    throw new Error(`getMe failed: ${message}`);
  }
}

/**
 * Checks the bot token against the configured API root with `getMe`, for `herald doctor`.
 * Never returns or logs the token: failures are redacted and say what to fix.
 *
 * Source: https://core.telegram.org/bots/api#getme
 */
export async function checkTelegramCredentials(
  config: TelegramConfig,
  deps: Pick<ChannelPluginDeps, "secret"> & { accountId?: string },
): Promise<{ ok: boolean; detail: string }> {
  let token: string | undefined;
  try {
    token = readSecret(deps, telegramSecrets.botToken(config));
    const me = await createTelegramApi({
      token,
      apiRoot: config.apiRoot,
      timeoutMs: config.requestTimeoutMs,
    }).getMe();
    return { ok: true, detail: `bot @${me.username} (id ${me.id}) at ${config.apiRoot}` };
  } catch (error) {
    if (isMalformedSecretError(error)) return { ok: false, detail: error.message };
    const failure = classifyError(error, token);
    const hint =
      failure.kind === "auth"
        ? `the token in ${config.tokenEnv} was rejected — check it with @BotFather (and apiRoot ${config.apiRoot})`
        : failure.kind === "transient"
          ? `could not reach ${config.apiRoot}`
          : `getMe failed`;
    return { ok: false, detail: redactToken(`${hint}: ${failure.message}`, token) };
  }
}
