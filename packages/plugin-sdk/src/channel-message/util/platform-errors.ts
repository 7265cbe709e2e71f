/**
 * A plugin's two error classes in one call (STYLE "three kinds of failure, three error types"):
 * `<Name>ApiError` — the platform answered and said no — and `<Name>NetworkError` — no answer,
 * with the dispatch evidence of {@link networkFailureOf}. Both are subclasses of the SDK's
 * {@link PlatformApiError} / {@link PlatformNetworkError}, so `classifyPlatformError` classifies
 * them, and their names carry the platform code or reason (`AcmeApiError[rate_limited]`,
 * `AcmeNetworkError[refused]`) so logs stay greppable.
 *
 * @module
 */
import { type PlatformAnswer, PlatformApiError } from "./api-error.ts";
import { networkFailureOf, PlatformNetworkError } from "./network.ts";

/** Options of {@link platformErrors}. */
export type PlatformErrorsOptions = {
  /**
   * herald error code prefix: `HERALD_ACME` gives `HERALD_ACME_API` and `HERALD_ACME_NETWORK`.
   * @defaultValue `HERALD_` + the name in capitals (`"HttpChat"` → `HERALD_HTTPCHAT`)
   */
  code?: string;
  /** How messages name the platform. @defaultValue `the <name> API` */
  platform?: string;
};

/** The API error class {@link platformErrors} makes: `new AcmeApiError(call, answer)`. */
export type PlatformApiErrorClass = new (
  call: string,
  answer: PlatformAnswer,
  options?: ErrorOptions,
) => PlatformApiError;

/** The network error class {@link platformErrors} makes: `new AcmeNetworkError(call, cause)`. */
export type PlatformNetworkErrorClass = new (call: string, cause: unknown) => PlatformNetworkError;

/**
 * Makes a plugin's API and network error classes, named `<name>ApiError` and
 * `<name>NetworkError`.
 *
 * @param name - the class name stem, e.g. `"Acme"`.
 * @throws TypeError when `name` is not an identifier or `code` is not `UPPER_SNAKE`.
 * @example
 * export const { ApiError: AcmeApiError, NetworkError: AcmeNetworkError } = platformErrors("Acme");
 * // the same as platformErrors("Acme", { code: "HERALD_ACME", platform: "the Acme API" })
 * throw new AcmeApiError("POST /v1/messages", { status: 429, platformCode: "rate_limited", retryAfterMs: 1_000 });
 */
export function platformErrors(
  name: string,
  options: PlatformErrorsOptions = {},
): { ApiError: PlatformApiErrorClass; NetworkError: PlatformNetworkErrorClass } {
  if (!/^[A-Za-z_$][\w$]*$/.test(name)) {
    throw new TypeError(`platformErrors: name must be an identifier, got "${name}"`);
  }
  const code = options.code ?? `HERALD_${name.toUpperCase()}`;
  const platform = options.platform ?? `the ${name} API`;
  if (!/^[A-Z][A-Z0-9_]*$/.test(code)) {
    throw new TypeError(`platformErrors: code must be UPPER_SNAKE, got "${code}"`);
  }
  const api = class extends PlatformApiError {
    constructor(call: string, answer: PlatformAnswer, errorOptions?: ErrorOptions) {
      super(`${code}_API`, platform, call, answer, errorOptions);
    }
  };
  const network = class extends PlatformNetworkError {
    constructor(call: string, cause: unknown) {
      super(`${code}_NETWORK`, platform, call, networkFailureOf(cause), { cause });
    }
  };
  // `new.target.name` names the instances (`AcmeApiError[rate_limited]`).
  Object.defineProperty(api, "name", { value: `${name}ApiError` });
  Object.defineProperty(network, "name", { value: `${name}NetworkError` });
  return { ApiError: api, NetworkError: network };
}
