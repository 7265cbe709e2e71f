/**
 * How the `herald` CLI ends on errors: one line `herald: <message>` (a `ConfigError` lists each
 * field and its fix), the stack only with `--verbose`, exit code 1; and output piped into a
 * reader that stops early (`herald queue ls | head`) ends quietly instead of crashing on EPIPE.
 *
 * @module
 */
import { HeraldError } from "@herald/core";

/**
 * A plain user error of a CLI command (unknown id, bad option value, nothing changed): printed
 * without the `--verbose` hint, since there is no stack worth reading.
 */
export class CliUsageError extends HeraldError {
  constructor(message: string) {
    super("HERALD_CLI_USAGE", message);
  }
}

/** Where errors are written. */
export type ErrOut = { write(text: string): unknown };

/** The text printed for `error`: message (and code), plus the stack and causes when `verbose`. */
export function formatCliError(error: unknown, verbose: boolean): string {
  const e = error instanceof Error ? error : new Error(String(error));
  const code = e instanceof HeraldError ? ` [${e.code}]` : "";
  const lines = [`herald: ${e.message}${code}`];
  if (verbose) {
    if (e.stack) lines.push(e.stack);
    let cause = e.cause;
    while (cause) {
      lines.push(
        `caused by: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}`,
      );
      cause = cause instanceof Error ? cause.cause : undefined;
    }
  } else if (!(e instanceof HeraldError)) {
    lines.push("(run with --verbose for the stack trace)");
  }
  return `${lines.join("\n")}\n`;
}

/** Prints `error` for a user. */
export function reportCliError(
  error: unknown,
  options: { verbose: boolean; err?: ErrOut } = { verbose: false },
): void {
  (options.err ?? process.stderr).write(formatCliError(error, options.verbose));
}

function isEpipe(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === "EPIPE";
}

/**
 * Installs the process-wide handlers: EPIPE on stdout / stderr exits 0 at once (the reader has
 * what it wanted); an uncaught error or unhandled rejection is reported like a command error
 * and exits 1.
 */
export function installCliErrorHandling(options: { verbose: boolean }): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error) => {
      if (isEpipe(error)) process.exit(0);
      throw error;
    });
  }
  const fatal = (error: unknown) => {
    if (isEpipe(error)) process.exit(0);
    reportCliError(error, options);
    process.exit(1);
  };
  process.on("uncaughtException", fatal);
  process.on("unhandledRejection", fatal);
}
