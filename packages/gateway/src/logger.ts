/**
 * The gateway's structured logger: pino, one JSON line per event, with every secret the gateway
 * read replaced by `[redacted]` before the line leaves the process (DESIGN §11 — the Telegram
 * token is part of Bot API URLs, so it can hide in any error message).
 *
 * @module
 */
import type { HeraldLogger } from "@herald/core";
import pino from "pino";
import type { SecretReader } from "./plugins/secrets.ts";

/** Creates the redacting pino logger. */
export function createLogger(options: {
  level: string;
  secrets: SecretReader;
  out?: { write(line: string): unknown };
}): HeraldLogger & pino.Logger {
  const out = options.out ?? process.stdout;
  return pino(
    { level: options.level, base: { service: "herald" } },
    { write: (line: string) => out.write(options.secrets.redact(line)) },
  );
}
