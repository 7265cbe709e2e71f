/**
 * Reading a plugin's secrets ([H28] C49, DESIGN §11): every token, signing secret and key a
 * plugin reads from the environment (or a file) named in its config goes through
 * {@link readSecret} / {@link checkSecret}, which trims it — a value written with
 * `echo … > file` or pasted into an env file ends in a newline, and an HMAC keyed with that
 * newline refuses every genuine request — and checks its shape at start, so a malformed value
 * stops the account with an error naming the setting instead of failing every request later.
 * The error never contains the value.
 *
 * @module
 */
import { ChannelAccountError } from "../account.ts";

/** What a plugin reads and how a well-formed value looks. */
export type SecretSpec = {
  /** The channel id (for the error: `slack/main: …`). */
  channel: string;
  /**
   * Where the value comes from, as named in the config: an env var name, or `file <path>`.
   * Passed to `deps.secret` by {@link readSecret}.
   */
  name: string;
  /** The config setting naming it, relative to the account's config, e.g. `receive.signingSecretEnv`. */
  setting: string;
  /** What the value is, for the error, e.g. "the Slack signing secret". */
  what: string;
  /**
   * A well-formed (trimmed) value matches it.
   * @defaultValue no whitespace or control character inside
   */
  shape?: RegExp;
  /** The value may hold whitespace inside (a JSON key file); only its ends are trimmed. @defaultValue false */
  multiline?: boolean;
  /** How a well-formed value looks, for the error, e.g. "a bot token (xoxb-…)". */
  expected?: string;
  /** Where the user finds the right value (shown with the fix), e.g. "Basic Information → App Credentials". */
  where?: string;
};

/** No whitespace or control character anywhere (after trimming the ends). */
const NO_INNER_SPACE = /^[^\s\p{Cc}]+$/u;

/**
 * A secret read from the environment or a file is not well-formed: empty once trimmed, or not
 * of its documented shape. The account cannot run until it is fixed (a {@link ChannelAccountError}:
 * the gateway stops this account and starts the others; at load it is a config issue at
 * {@link MalformedSecretError.setting}). The message names the setting, the variable and the
 * expected shape, never the value.
 */
export class MalformedSecretError extends ChannelAccountError {
  /** The config setting that names the secret (relative to the account config). */
  readonly setting: string;
  /** The env var name (or `file <path>`) the value came from. */
  readonly source: string;
  /** What is wrong with it, without the value. */
  readonly problem: string;
  constructor(spec: SecretSpec, accountId: string, problem: string) {
    const fix = `put ${spec.expected ?? spec.what} in ${spec.name}${spec.where ? ` (${spec.where})` : ""}, the variable named by ${spec.setting}`;
    super(
      spec.channel,
      accountId,
      `${spec.what} in ${spec.name} (config ${spec.setting}) ${problem}`,
      fix,
    );
    this.name = "MalformedSecretError";
    this.setting = spec.setting;
    this.source = spec.name;
    this.problem = problem;
  }
}

/** Whether `error` is a {@link MalformedSecretError} (by shape, across package copies). */
export function isMalformedSecretError(error: unknown): error is MalformedSecretError {
  const e = error as { name?: unknown; setting?: unknown; problem?: unknown } | null;
  return (
    e?.name === "MalformedSecretError" &&
    typeof e.setting === "string" &&
    typeof e.problem === "string"
  );
}

/**
 * Trims a secret and checks its shape.
 *
 * @param accountId - the account reading it (for the error).
 * @returns the value without leading or trailing whitespace.
 * @throws {@link MalformedSecretError} when it is empty once trimmed or does not match
 *   `spec.shape`, naming the setting and the variable (never the value).
 *
 * @example
 * const secret = checkSecret(process.env.SLACK_SIGNING_SECRET ?? "", "main", {
 *   channel: "slack", name: "SLACK_SIGNING_SECRET", setting: "receive.signingSecretEnv",
 *   what: "the Slack signing secret", shape: /^[A-Za-z0-9]+$/, expected: "letters and digits",
 * });
 */
export function checkSecret(raw: string, accountId: string, spec: SecretSpec): string {
  const value = raw.trim();
  if (value === "") throw new MalformedSecretError(spec, accountId, "is empty");
  if (!spec.multiline && !NO_INNER_SPACE.test(value))
    throw new MalformedSecretError(
      spec,
      accountId,
      "contains whitespace or a control character inside (a second line, a space, quotes?)",
    );
  if (spec.shape && !spec.shape.test(value))
    throw new MalformedSecretError(
      spec,
      accountId,
      `is not ${spec.expected ?? "of the expected shape"} (${value.length} characters read)`,
    );
  return value;
}

/**
 * Reads a secret through the host (`deps.secret(spec.name)`: the env var named in the config),
 * then trims it and checks its shape ({@link checkSecret}).
 *
 * @throws whatever `deps.secret` throws for a missing variable (it names the variable), and
 *   {@link MalformedSecretError} for a malformed value.
 */
export function readSecret(
  deps: { accountId?: string; secret(name: string): string },
  spec: SecretSpec,
): string {
  return checkSecret(deps.secret(spec.name), deps.accountId ?? "default", spec);
}

/**
 * The value of `key` in a plain object when the object itself has it — never one inherited from
 * `Object.prototype` (`"__proto__"`, `"constructor"`, `"toString"`). Use it for every lookup
 * keyed by input (a team id, a token, a platform error code) in a record read from config or
 * JSON.
 *
 * @example
 * ownValue({ T0123: "acme" }, "constructor"); // undefined
 */
export function ownValue<V>(record: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
