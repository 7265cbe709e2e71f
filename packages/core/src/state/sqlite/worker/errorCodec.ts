/**
 * Errors across the worker boundary. Structured clone keeps only an error's message and stack,
 * so a thrown `IntentConflictError` would arrive as a bare `Error` without its `intentId`. The
 * worker encodes every error as its class name, message, stack, own fields and cause (recursively);
 * the main thread revives it as an instance of the same class with the same fields, so
 * `instanceof` checks, `code`, `message` and fields hold exactly as with the in-thread store.
 *
 * Classes the SQLite store can throw are listed in {@link REVIVABLE}; any other `HeraldError`
 * (by its `code` field) is revived as a `HeraldError`, anything else as an `Error` with its
 * fields (e.g. a SQLite error's `errcode`).
 *
 * @module
 */
import { HeraldError, NotImplementedError } from "../../../errors.ts";
import { FailpointError } from "../../../failpoint.ts";
import { IllegalTransitionError } from "../../../message/intent.ts";
import {
  IntentConflictError,
  ReceiptConflictError,
  SchemaTooNewError,
  StoreUnavailableError,
} from "../../errors.ts";

/** An error as it crosses `postMessage`: plain, structured-cloneable data. */
export type EncodedError =
  | {
      kind: "error";
      /** Constructor name in the worker, e.g. `IntentConflictError`. */
      className: string;
      message: string;
      stack: string | undefined;
      /** Own enumerable fields (`name`, `code`, `intentId`, …) that survive structured clone. */
      fields: Record<string, unknown>;
      cause?: EncodedError;
    }
  | { kind: "value"; value: unknown };

type ErrorClass = { prototype: Error };

/** The classes revived by name (everything the SQLite store and its failpoints throw). */
const REVIVABLE: Readonly<Record<string, ErrorClass>> = {
  IntentConflictError,
  ReceiptConflictError,
  IllegalTransitionError,
  StoreUnavailableError,
  SchemaTooNewError,
  FailpointError,
  NotImplementedError,
  HeraldError,
  TypeError,
  RangeError,
  SyntaxError,
};

function cloneable(value: unknown): boolean {
  try {
    structuredClone(value);
    return true;
  } catch {
    return false;
  }
}

/** Encodes a thrown value for `postMessage` (worker side). */
export function encodeError(error: unknown, depth = 0): EncodedError {
  if (!(error instanceof Error)) {
    return { kind: "value", value: cloneable(error) ? error : String(error) };
  }
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    if (cloneable(value)) fields[key] = value;
  }
  const encoded: EncodedError = {
    kind: "error",
    className: error.constructor?.name ?? "Error",
    message: error.message,
    stack: error.stack,
    fields,
  };
  // A cycle or an absurd chain stops after 8 causes.
  if (error.cause !== undefined && depth < 8) encoded.cause = encodeError(error.cause, depth + 1);
  return encoded;
}

/** Revives an encoded error as an instance of its class (main-thread side). */
export function decodeError(encoded: EncodedError): unknown {
  if (encoded.kind === "value") return encoded.value;
  const cls =
    REVIVABLE[encoded.className] ??
    (typeof encoded.fields.code === "string" && encoded.fields.code.startsWith("HERALD_")
      ? HeraldError
      : Error);
  // No constructor call: the fields and message are restored as they were, not recomputed.
  const error = Object.create(cls.prototype) as Error;
  Object.defineProperty(error, "message", {
    value: encoded.message,
    writable: true,
    configurable: true,
  });
  if (encoded.stack !== undefined) {
    Object.defineProperty(error, "stack", {
      value: encoded.stack,
      writable: true,
      configurable: true,
    });
  }
  if (encoded.cause !== undefined) {
    Object.defineProperty(error, "cause", {
      value: decodeError(encoded.cause),
      writable: true,
      configurable: true,
    });
  }
  Object.assign(error, encoded.fields);
  return error;
}
