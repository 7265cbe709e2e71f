/**
 * The account's credentials as a google-auth-library client: a service account key (`JWT` with
 * the `chat.bot` scope: the app acts as itself) or a preset OAuth access token (`OAuth2Client`
 * with that token, never refreshed — what tests use against the fake, since a `JWT`'s token URL
 * cannot be redirected, PLATFORMS.md §1). The secret values are returned too, so every error
 * message can be redacted.
 *
 * Source: https://developers.google.com/workspace/chat/authenticate-authorize-chat-app
 *
 * @module
 */
import { readFileSync } from "node:fs";
import {
  type ChannelPluginDeps,
  checkSecret,
  readSecret,
} from "@herald/plugin-sdk/channel-message";
import { JWT, OAuth2Client } from "google-auth-library";
import { CHAT_BOT_SCOPE, type GoogleChatConfig, googleChatSecrets } from "./config.ts";
import { GoogleChatRenderError } from "./errors.ts";

/** An auth client and the secrets it holds. */
export type GoogleChatCredentials = {
  auth: OAuth2Client;
  /** Raw secret values (token, private key, key JSON), for redaction. */
  secrets: string[];
  /** Where they came from, for messages (`env GOOGLE_CHAT_ACCESS_TOKEN`, a key file). */
  source: string;
};

/** A preset access token as credentials (no refresh). */
export function accessTokenCredentials(
  token: string,
  source = "access token",
): GoogleChatCredentials {
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: token.trim(), token_type: "Bearer" });
  return { auth, secrets: [token], source };
}

/**
 * Reads the credentials a config names.
 * @throws GoogleChatRenderError when a service account key is not the JSON Google issues.
 * @throws whatever `deps.secret` throws for a missing env var (it names the variable).
 */
export function credentialsOf(
  config: GoogleChatConfig,
  deps: Pick<ChannelPluginDeps, "secret"> & { accountId?: string },
): GoogleChatCredentials {
  const c = config.credentials;
  if (c.type === "access_token") {
    return accessTokenCredentials(
      readSecret(deps, googleChatSecrets.accessToken(c.tokenEnv)),
      `env ${c.tokenEnv}`,
    );
  }
  const source = c.keyJsonEnv ? `env ${c.keyJsonEnv}` : `key file ${c.keyFile}`;
  const raw = c.keyJsonEnv
    ? readSecret(deps, googleChatSecrets.serviceAccountKey({ keyJsonEnv: c.keyJsonEnv }))
    : checkSecret(
        readFileSync(c.keyFile ?? "", "utf8"),
        deps.accountId ?? "default",
        googleChatSecrets.serviceAccountKey({ keyFile: c.keyFile ?? "" }),
      );
  let key: { client_email?: unknown; private_key?: unknown };
  try {
    key = JSON.parse(raw) as typeof key;
  } catch {
    throw new GoogleChatRenderError(
      `credentials: ${source} is not JSON (a service account key file)`,
    );
  }
  if (typeof key.client_email !== "string" || typeof key.private_key !== "string") {
    throw new GoogleChatRenderError(
      `credentials: ${source} has no client_email / private_key (a service account key file)`,
    );
  }
  const auth = new JWT({ email: key.client_email, key: key.private_key, scopes: [CHAT_BOT_SCOPE] });
  return { auth, secrets: [raw, key.private_key], source };
}
