/**
 * What a config's sections turn into for `createGateway`: one mapping, used by `herald(config)`
 * and by `herald start`, so every section the API honours, the CLI honours too ([H28] C47).
 * The sections not mapped here are read where they apply: `store` (`openStore`), `channels`
 * (`loadPlugins`), `log` (the logger), `handler` (`herald start` imports it).
 *
 * @module
 */
import { consoleTokenProblem } from "../console/deps.ts";
import type { GatewayOptions } from "../gateway.ts";
import type { SecretReader } from "../plugins/secrets.ts";
import { deliveryOptionsOf } from "./delivery.ts";
import { ConfigError } from "./errors.ts";
import { type HeraldConfig, receivePolicyOf } from "./schema.ts";

/** The gateway options a config's `http`, `delivery`, `receive`, `typing` and `console` give. */
export type ConfigGatewayOptions = Pick<
  GatewayOptions,
  "http" | "delivery" | "receive" | "typing" | "console" | "failureNotice"
>;

/**
 * Maps a validated config to gateway options; reads the console token from its env var.
 *
 * @throws ConfigError at `console.tokenEnv` when the token is unset or too short.
 */
export function gatewayOptionsOf(
  config: HeraldConfig,
  secrets: SecretReader,
): ConfigGatewayOptions {
  return {
    http: config.http,
    delivery: deliveryOptionsOf(config),
    receive: receivePolicyOf(config),
    typing: config.typing,
    ...(config.failureNotice ? { failureNotice: config.failureNotice } : {}),
    ...(config.console
      ? {
          console: {
            token: consoleToken(secrets, config.console.tokenEnv),
            allowRemote: config.console.allowRemote,
            ...(config.console.sessionTtlMs !== undefined
              ? { sessionTtlMs: config.console.sessionTtlMs }
              : {}),
          },
        }
      : {}),
  };
}

/**
 * Reads the console token from its env var, trimmed (like every secret: a value written with
 * `echo … > file` ends in a newline) and shape-checked ({@link consoleTokenProblem}).
 * @throws ConfigError at `console.tokenEnv` when unset, shorter than 16 characters or holding
 *   whitespace inside; the message never contains the token.
 */
function consoleToken(secrets: SecretReader, tokenEnv: string): string {
  const token = secrets.read(tokenEnv, "console.tokenEnv");
  const problem = consoleTokenProblem(token);
  if (problem !== undefined)
    throw new ConfigError("config", [
      {
        path: "console.tokenEnv",
        message: `${tokenEnv}: ${problem}`,
        fix: `export ${tokenEnv}=$(openssl rand -hex 24)`,
      },
    ]);
  return token;
}
