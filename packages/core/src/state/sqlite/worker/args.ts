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

/** True when `value` holds something structured clone would not copy the way JSON does. */
function needsJson(value: unknown): boolean {
  const stack: unknown[] = [value];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "function" || typeof v === "symbol") return true;
    if (typeof v !== "object" || v === null) continue;
    // A cycle (JSON throws, as in the in-thread store) or a shared node: JSON decides.
    if (seen.has(v)) return true;
    seen.add(v);
    const proto = Object.getPrototypeOf(v) as unknown;
    if (Array.isArray(v)) {
      if (proto !== Array.prototype) return true;
    } else if (proto !== Object.prototype && proto !== null) return true;
    for (const child of Object.values(v)) stack.push(child);
  }
  return false;
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
