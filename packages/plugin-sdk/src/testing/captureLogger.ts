/**
 * A logger that keeps every line, for tests that grep what was logged (DESIGN §11: "a test
 * greps every stored failure and log line of the test run for the tokens it used"). Errors are
 * serialized with every field — message, stack, causes, own properties — so a token hidden in a
 * cause's URL is found.
 *
 * @module
 */
import type { HeraldLogger } from "@herald/core";

/** Serializes a log entry with every error field (message, stack, causes, own properties). */
export function serializeLogEntry(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Error) {
      const out: Record<string, unknown> = { name: v.name, message: v.message, stack: v.stack };
      for (const k of Object.getOwnPropertyNames(v)) {
        out[k] = (v as unknown as Record<string, unknown>)[k];
      }
      if (v.cause !== undefined) out.cause = v.cause;
      return out;
    }
    if (v && typeof v === "object") {
      if (seen.has(v)) return "[circular]";
      seen.add(v);
    }
    return v;
  });
}

/**
 * A logger that appends one JSON line per entry to `lines` (`{ level, ...bindings, ...obj, msg }`).
 *
 * @example
 * const lines: string[] = [];
 * const logger = captureLogger(lines);
 * logger.child({ channel: "qa" }).warn({ err }, "send failed");
 * lines.some((l) => l.includes(token)); // false, or a secret leaked
 */
export function captureLogger(lines: string[], bindings: object = {}): HeraldLogger {
  const write = (level: string) => (obj: object, msg?: string) => {
    lines.push(serializeLogEntry({ level, ...bindings, ...obj, msg }));
  };
  return {
    debug: write("debug"),
    info: write("info"),
    warn: write("warn"),
    error: write("error"),
    child: (more) => captureLogger(lines, { ...bindings, ...more }),
  };
}
