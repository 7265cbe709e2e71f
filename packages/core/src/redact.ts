/**
 * Secret redaction, the one copy (DESIGN §11): every place a secret could leak — log lines,
 * stored failure reasons, error messages, `herald queue show` — replaces it with
 * {@link REDACTED}. A secret is matched in every form it can take on the way out: as configured
 * (often with a trailing newline from a k8s secret or an `.env` file), trimmed (what a client
 * sends after `.trim()`), and URL-encoded (inside a request URL, e.g. Telegram's
 * `/bot<token>/`), form-encoded (`+` for spaces), and JSON-escaped (inside a stored value printed
 * as JSON, e.g. a service-account key with quotes and `\n` in it).
 *
 * @module
 */

/** What a redacted secret reads as. */
export const REDACTED = "[redacted]";

/**
 * Secrets shorter than this (after trimming) are not redacted: replacing every `abc` in every
 * log line would destroy the log and protect nothing (a secret that short is guessable anyway).
 */
export const MIN_REDACTED_LENGTH = 6;

/**
 * Every form of `secret` that may appear in output: raw, trimmed (both ends and the end only),
 * and each of those URL-encoded (`encodeURIComponent`), form-encoded
 * (`application/x-www-form-urlencoded`) and JSON-escaped (`JSON.stringify` without the quotes). Longest first, so a longer form is replaced whole
 * before a shorter one inside it.
 *
 * @returns `[]` for a secret shorter than {@link MIN_REDACTED_LENGTH} once trimmed.
 */
export function secretForms(secret: string): string[] {
  if (secret.trim().length < MIN_REDACTED_LENGTH) return [];
  const plain = new Set([secret, secret.trim(), secret.trimEnd(), secret.trimStart()]);
  const forms = new Set<string>();
  for (const p of plain) {
    forms.add(p);
    forms.add(encodeURIComponent(p));
    forms.add(new URLSearchParams({ s: p }).toString().slice(2));
    // Inside a JSON string (a stored intent or dead letter as `queue show` prints it): quotes,
    // backslashes and newlines escaped.
    forms.add(JSON.stringify(p).slice(1, -1));
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/**
 * Replaces every form of every secret in `text` (see {@link secretForms}) with `replacement`.
 *
 * @param secrets - the raw values as read from the environment or files (untrimmed is fine).
 * @param replacement - @defaultValue {@link REDACTED}
 * @example
 * redactSecrets("GET /bot123:ABCDEF/getMe", ["123:ABCDEF\n"]); // "GET /bot[redacted]/getMe"
 */
export function redactSecrets(
  text: string,
  secrets: Iterable<string>,
  replacement: string = REDACTED,
): string {
  const forms = [...secrets].flatMap(secretForms).sort((a, b) => b.length - a.length);
  let out = text;
  for (const form of forms) out = out.split(form).join(replacement);
  return out;
}

/**
 * A set of secrets to redact, added as they are read (the gateway adds every env value it
 * hands a plugin; a plugin can keep one for its own tokens).
 *
 * @example
 * const redactor = new SecretRedactor();
 * redactor.add(process.env.BOT_TOKEN ?? "");
 * logger.error({ msg: redactor.redact(error.message) });
 */
export class SecretRedactor {
  readonly #forms = new Set<string>();
  readonly #secrets = new Set<string>();
  #sorted: string[] = [];

  /** Remembers `secret` (ignored when shorter than {@link MIN_REDACTED_LENGTH} once trimmed). */
  add(secret: string): this {
    const forms = secretForms(secret);
    if (forms.length === 0) return this;
    this.#secrets.add(secret.trim());
    for (const f of forms) this.#forms.add(f);
    this.#sorted = [...this.#forms].sort((a, b) => b.length - a.length);
    return this;
  }

  /** Replaces every form of every remembered secret in `text` with {@link REDACTED}. */
  redact(text: string): string {
    let out = text;
    for (const form of this.#sorted) out = out.split(form).join(REDACTED);
    return out;
  }

  /** How many distinct secrets (trimmed) are remembered. */
  get size(): number {
    return this.#secrets.size;
  }
}

const URL_PATTERN = /\b([a-z][a-z0-9+.-]*:\/\/)(?:[^\s/@]*@)?([^\s/?#@]+)([/?#][^\s"'<>)]*)?/gi;

/**
 * Drops what may hold a credential from every URL in `text`: user info (`user:pass@`), and the
 * path, query and fragment (Telegram puts the bot token in the path, others an `access_token`
 * in the query); scheme and host stay. For error text nobody vetted — an adapter that gave no
 * reason of its own — when the secrets themselves are not known.
 *
 * @example
 * redactUrls("request to https://api.telegram.org/bot123:ABC/sendMessage failed");
 * // "request to https://api.telegram.org/[redacted] failed"
 */
export function redactUrls(text: string): string {
  return text.replace(URL_PATTERN, (_match, scheme: string, host: string, rest?: string) =>
    rest ? `${scheme}${host}/${REDACTED}` : `${scheme}${host}`,
  );
}
