/**
 * Secrets come from environment variables named in the config, never from the config itself
 * (DESIGN §11). Every value read is remembered so logs and stored failures can be redacted.
 *
 * @module
 */
import { SecretRedactor } from "@herald/core";
import { ConfigError } from "../config/errors.ts";

/**
 * Values that are public by design, named in the fix when their variable is unset: the QA
 * platform's default bot (`herald demo`, the README bot) has a fixed token.
 */
const PUBLIC_DEFAULTS: Readonly<Record<string, { value: string; why: string }>> = {
  HERALD_QA_TOKEN: {
    value: "herald:qa-secret",
    why: "the QA platform's default bot, as in herald demo; a QA platform with other bots takes their tokens",
  },
};

/**
 * Where in a plugin config an env var name is given (`.tokenEnv`, `.receive.secretTokenEnv`),
 * for error messages; "" when no `…Env` / `…Secret` field holds `name`.
 */
export function secretFieldPath(config: unknown, name: string, at = ""): string {
  if (typeof config !== "object" || config === null) return "";
  for (const [key, value] of Object.entries(config)) {
    if (value === name && /(Env|Secret)$/.test(key)) return `${at}.${key}`;
    const inner = secretFieldPath(value, name, `${at}.${key}`);
    if (inner) return inner;
  }
  return "";
}

/** Reads secrets from the environment and remembers them for redaction. */
export class SecretReader {
  readonly #env: NodeJS.ProcessEnv;
  readonly #redactor = new SecretRedactor();

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.#env = env;
  }

  /**
   * The value of environment variable `name`, trimmed (a value written with `echo … > file`
   * ends in a newline; plugins also trim and shape-check with the SDK's `readSecret`).
   * @param where - the config path that named it, for the error message.
   * @throws {@link ConfigError} when it is unset or empty (or only whitespace).
   */
  read(name: string, where: string): string {
    // Own keys only: a variable named "constructor" or "toString" is unset, not a function (C49).
    const raw = Object.hasOwn(this.#env, name) ? this.#env[name] : undefined;
    const value = raw?.trim();
    if (!value) {
      const known = Object.hasOwn(PUBLIC_DEFAULTS, name) ? PUBLIC_DEFAULTS[name] : undefined;
      throw new ConfigError("config", [
        {
          path: where,
          message: `environment variable ${name} is not set`,
          fix: known
            ? `export ${name}=${known.value} before starting herald (${known.why})`
            : `export ${name}=<value> before starting herald`,
        },
      ]);
    }
    this.#redactor.add(raw as string);
    this.#redactor.add(value);
    return value;
  }

  /**
   * Replaces every secret value read so far with `[redacted]`, in every form it may take in
   * output: raw, trimmed (a value ending in a newline is trimmed by the client that sends it),
   * URL- and form-encoded (core's {@link SecretRedactor}).
   */
  redact(text: string): string {
    return this.#redactor.redact(text);
  }

  /** How many distinct secrets were read. */
  get size(): number {
    return this.#redactor.size;
  }
}
