/**
 * Who a Discord bot is (DESIGN §8, [H15] 1): `createDiscordAccount` asks Discord with
 * `GET /users/@me` before anything runs, so a wrong token stops this account at start with an
 * error naming the variable and the fix (instead of retrying a 401 forever), and the bot's user
 * id is known before the first echo check. The gateway's READY confirms it (and adds the
 * application id) once the receiver is up.
 *
 * Source: https://discord.com/developers/docs/resources/user#get-current-user
 *
 * @module
 */
import {
  ChannelAccountError,
  type ChannelPluginDeps,
  readSecret,
} from "@herald/plugin-sdk/channel-message";
import { DiscordRest } from "./client.ts";
import { type DiscordConfig, discordSecrets } from "./config.ts";
import { classifyError, redactToken } from "./errors.ts";

/** The channel id of Discord. */
export const DISCORD_CHANNEL_ID = "discord";

/** The current user, as `GET /users/@me` answers (the fields herald reads). */
export type DiscordSelf = { id: string; username: string; bot?: boolean };

const fixFor = (config: DiscordConfig) =>
  `check the bot token in ${config.tokenEnv} (Developer Portal → Bot → Reset Token) and apiBase ${config.apiBase}`;

/**
 * `GET /users/@me` with the token; a rejected token becomes a {@link ChannelAccountError}.
 * @throws ChannelAccountError on 401; Error (retried by the gateway) on anything else.
 */
export async function fetchSelf(
  config: DiscordConfig,
  token: string,
  accountId: string,
  signal?: AbortSignal,
): Promise<DiscordSelf> {
  const rest = new DiscordRest({
    token,
    apiBase: config.apiBase,
    timeoutMs: config.requestTimeoutMs,
  });
  try {
    return await rest.call<DiscordSelf>({
      method: "GET",
      route: "/users/@me",
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    const failure = classifyError(error, token);
    const message = redactToken(failure.message, token);
    if (failure.kind === "auth") {
      throw new ChannelAccountError(
        DISCORD_CHANNEL_ID,
        accountId,
        `Discord rejected the bot token (${message})`,
        fixFor(config),
      );
    }
    throw new Error(`GET /users/@me failed: ${message}`);
  }
}

/**
 * Checks the bot token against `apiBase` with `GET /users/@me`, for `herald doctor`. Never
 * returns or logs the token.
 */
export async function checkDiscordCredentials(
  config: DiscordConfig,
  deps: Pick<ChannelPluginDeps, "secret"> & { accountId?: string },
): Promise<{ ok: boolean; detail: string }> {
  let token: string | undefined;
  try {
    token = readSecret(deps, discordSecrets.botToken(config));
    const me = await fetchSelf(config, token, "doctor");
    return { ok: true, detail: `bot ${me.username} (id ${me.id}) at ${config.apiBase}` };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, detail: redactToken(message, token) };
  }
}
