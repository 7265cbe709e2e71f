/**
 * The console's query parameters, read strictly: a value that is not one the page understands
 * (an unknown status, an age that is not a positive number, a window seq or size that is not a
 * positive integer) is a {@link ConsoleQueryError} naming the parameter, answered with a 400 page
 * that says what is allowed — never silently dropped, never a 500.
 *
 * @module
 */
import { HeraldError } from "@herald/core";
import type { Context } from "hono";

/** A query parameter of a console page has a value the page cannot use. */
export class ConsoleQueryError extends HeraldError {
  /** The query parameter, e.g. `status`. */
  readonly field: string;
  /** What was given. */
  readonly given: string;
  /** What the parameter accepts, e.g. `one of pending, sending`. */
  readonly expected: string;
  constructor(field: string, given: string, expected: string) {
    super(
      "HERALD_CONSOLE_BAD_QUERY",
      `query parameter ${field}=${JSON.stringify(given)}: expected ${expected}`,
    );
    this.field = field;
    this.given = given;
    this.expected = expected;
  }
}

/** The trimmed value of `name`, or undefined when absent or blank. */
export function queryValue(c: Context, name: string): string | undefined {
  return c.req.query(name)?.trim() || undefined;
}

/**
 * `name` as one of `allowed`, or undefined when absent.
 * @throws ConsoleQueryError when it is another value.
 */
export function queryChoice<T extends string>(
  c: Context,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const v = queryValue(c, name);
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v))
    throw new ConsoleQueryError(name, v, `one of ${allowed.join(", ")}`);
  return v as T;
}

/**
 * `name` as a positive number (`integer` for whole numbers only) at most `max`, or undefined
 * when absent.
 * @throws ConsoleQueryError when it is not one.
 */
export function queryPositive(
  c: Context,
  name: string,
  options: { integer?: boolean; max?: number } = {},
): number | undefined {
  const v = queryValue(c, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  const whole = options.integer ?? false;
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  if (!Number.isFinite(n) || n <= 0 || (whole && !Number.isInteger(n)) || n > max)
    throw new ConsoleQueryError(
      name,
      v,
      `a positive ${whole ? "integer" : "number"}${options.max === undefined ? "" : ` of at most ${max}`}`,
    );
  return n;
}
