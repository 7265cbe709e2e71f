/**
 * Error helpers for logs and outcomes.
 *
 * @module
 */
import { HeraldError } from "../errors.ts";

/** `error` as an `Error` (wrapping thrown non-errors). */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** A log-friendly summary: name, message and herald code. */
export function describeError(error: unknown): { name: string; message: string; code?: string } {
  const e = asError(error);
  return {
    name: e.name,
    message: e.message,
    ...(e instanceof HeraldError ? { code: e.code } : {}),
  };
}
