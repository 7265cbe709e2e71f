/**
 * Who a Matrix bot is (DESIGN §8, [H15]): before anything runs, `createMatrixAccount` asks the
 * homeserver `GET /_matrix/client/versions` (is it a homeserver at all) and
 * `GET /account/whoami` (whose token is this, on which device). The canonical user id is the one
 * `/whoami` returns, compared **case-exactly** as the server spells it; the device id must be the
 * configured one, because transaction ids are deduplicated per device — a token of another
 * device would make every replay a new event. A rejected token stops this account at start with
 * an error naming the variable and the fix, instead of retrying a 401 forever.
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#get_matrixclientv3accountwhoami
 *
 * @module
 */
import {
  ChannelAccountError,
  type ChannelPluginDeps,
  readSecret,
} from "@herald/plugin-sdk/channel-message";
import { MatrixHttp } from "./client.ts";
import { type MatrixConfig, matrixSecrets } from "./config.ts";
import { classifyError } from "./errors.ts";

/** The channel id of the Matrix plugin. */
export const MATRIX_CHANNEL_ID = "matrix";

/** Who the access token belongs to, as the homeserver says. */
export type MatrixIdentity = {
  /** The canonical user id, exactly as `/whoami` spells it. */
  userId: string;
  /** The device id of the token. */
  deviceId: string;
};

type WhoAmI = { user_id?: unknown; device_id?: unknown };

/**
 * Reads and checks the identity of `accessToken`.
 *
 * @throws ChannelAccountError when the token is rejected (`M_UNKNOWN_TOKEN`, `M_MISSING_TOKEN`),
 *   when `/whoami` names another user than `config.userId` (case-exact) or another device than
 *   `config.deviceId`, or when the URL is not a homeserver; a network failure throws a plain
 *   error (the gateway retries it).
 */
export async function whoami(
  config: MatrixConfig,
  accessToken: string,
  accountId: string,
  signal?: AbortSignal,
): Promise<MatrixIdentity> {
  const http = new MatrixHttp({
    homeserverUrl: config.homeserverUrl,
    accessToken,
    timeoutMs: config.requestTimeoutMs,
  });
  const unusable = (why: string, fix: string) =>
    new ChannelAccountError(MATRIX_CHANNEL_ID, accountId, why, fix);
  let answer: WhoAmI;
  try {
    await http.request("GET", "/_matrix/client/versions", "GET /_matrix/client/versions", {
      signal,
      prefix: "",
    });
    answer = await http.request<WhoAmI>("GET", "/account/whoami", "GET /account/whoami", {
      signal,
    });
  } catch (error) {
    const failure = classifyError(error, [accessToken]);
    if (failure.kind === "auth")
      throw unusable(
        `the homeserver rejected the access token (${failure.message})`,
        `log in again with device_id ${config.deviceId} and put the new token in ${config.accessTokenEnv}`,
      );
    if (failure.kind === "not_found" || failure.kind === "invalid_payload")
      throw unusable(
        `${config.homeserverUrl} does not answer like a Matrix homeserver (${failure.message})`,
        "set homeserverUrl to the client-server API base URL (without /_matrix)",
      );
    throw new Error(`whoami failed: ${failure.message}`, { cause: error });
  }
  const userId = typeof answer.user_id === "string" ? answer.user_id : "";
  const deviceId = typeof answer.device_id === "string" ? answer.device_id : "";
  if (!userId) throw unusable("/whoami answered without a user_id", "check homeserverUrl");
  if (config.userId !== undefined && userId !== config.userId) {
    throw unusable(
      `the token in ${config.accessTokenEnv} belongs to ${userId}, not ${config.userId} (compared exactly)`,
      `set userId to ${JSON.stringify(userId)} or use ${config.userId}'s token`,
    );
  }
  if (deviceId !== config.deviceId) {
    throw unusable(
      `the token in ${config.accessTokenEnv} is for device ${deviceId ? JSON.stringify(deviceId) : "(none)"}, not ${JSON.stringify(config.deviceId)}; transaction ids are deduplicated per device`,
      `set deviceId to ${JSON.stringify(deviceId)} if that device is this bot's, or log in with device_id ${config.deviceId}`,
    );
  }
  return { userId, deviceId };
}

/**
 * Checks the access token against the homeserver with `/whoami`, for `herald doctor`. Never
 * returns or logs the token.
 */
export async function checkMatrixCredentials(
  config: MatrixConfig,
  deps: Pick<ChannelPluginDeps, "secret"> & { accountId?: string },
): Promise<{ ok: boolean; detail: string }> {
  try {
    const id = await whoami(
      config,
      readSecret(deps, matrixSecrets.accessToken(config)),
      deps.accountId ?? "default",
    );
    return { ok: true, detail: `${id.userId} (device ${id.deviceId}) at ${config.homeserverUrl}` };
  } catch (error) {
    const fix = (error as { fix?: string }).fix;
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, detail: fix ? `${message} — ${fix}` : message };
  }
}
