/**
 * Call arguments as the worker must see them. The in-thread {@link SqliteStateStore} keeps
 * every object it is given as `JSON.stringify` text, so it accepts what JSON accepts: a
 * function or symbol in `message.raw` or a dedupe `meta` is dropped, a class instance is
 * written through its `toJSON` (an SDK object, a `URL`), a `Buffer` as `{type, data}`.
 * Structured clone differs on each: it throws `DataCloneError` on functions, symbols, proxies
 * and host objects (the call would fail where the in-thread store succeeds: an inbound message
 * not recorded), and strips prototypes (a class instance or `Buffer` would be written as
 * different JSON). So an argument holding anything but plain objects, arrays and primitives
 * crosses as its JSON round trip: what the worker writes is byte for byte what the in-thread
 * store writes. Plain data (the common case) is posted as is, with no copy on the main thread.
 *
 * @module
 */

/**
 * True when `value` holds something structured clone would not copy the way JSON does: a
 * function, a symbol, a non-plain object (class instance, `Buffer`, `Date`, `URL`, `Map`), a
 * cycle (JSON throws, as in the in-thread store), or nesting past 500 levels (JSON decides).
 * A node shared by two parents is fine: the worker writes it twice, as the in-thread store does.
 */
function needsJson(value: unknown, ancestors = new Set<object>()): boolean {
  if (typeof value === "function" || typeof value === "symbol") return true;
  if (typeof value !== "object" || value === null) return false;
  if (ancestors.has(value) || ancestors.size >= 500) return true;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (
    Array.isArray(value) ? proto !== Array.prototype : proto !== Object.prototype && proto !== null
  )
    return true;
  ancestors.add(value);
  try {
    for (const child of Object.values(value)) if (needsJson(child, ancestors)) return true;
    return false;
  } finally {
    ancestors.delete(value);
  }
}

/** The JSON round trip of one value (`undefined` when JSON drops it, e.g. a function). */
function viaJson(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : JSON.parse(text);
}

/**
 * The arguments to post: each one holding non-plain data replaced by its JSON round trip.
 * @param force - round-trip every object argument (after `postMessage` could not clone them,
 *   e.g. a `Proxy`, which looks plain).
 * @throws what `JSON.stringify` throws (a cycle, a BigInt): the in-thread store fails there too.
 */
export function wireArgs(args: unknown[], force = false): unknown[] {
  let out: unknown[] | undefined;
  for (const [i, a] of args.entries()) {
    if (force ? typeof a === "object" || typeof a === "function" : needsJson(a)) {
      out ??= [...args];
      out[i] = viaJson(a);
    }
  }
  return out ?? args;
}
