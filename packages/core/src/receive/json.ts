/**
 * JSON safety for payloads from the outside world: whatever arrives (cycles, BigInts,
 * functions) can be stored, so a bad payload becomes a dead letter instead of a crash.
 *
 * @module
 */

/**
 * Returns `value` when it survives `JSON.stringify`, else a JSON description of it
 * (`{ unserializable, type, preview }`). Lossy JSON conversions (`NaN` → `null`, dropped
 * `undefined` fields) are left to `JSON.stringify`.
 */
export function jsonSafe(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return { unserializable: true, type: typeof value };
    return value;
  } catch (error) {
    let preview: string;
    try {
      preview = String(value).slice(0, 1000);
    } catch {
      preview = Object.prototype.toString.call(value);
    }
    return {
      unserializable: true,
      type: typeof value,
      preview,
      reason: error instanceof Error ? error.message : String(error),
    };
  }
}
