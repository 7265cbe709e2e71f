/**
 * The logger shape core writes to: a subset of pino's `Logger`, so a pino instance can be
 * passed as is (DESIGN §11: one structured line per lifecycle transition).
 *
 * @module
 */

/** A pino-compatible structured logger. */
export type HeraldLogger = {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: object): HeraldLogger;
};

/** A logger that drops everything (the default when none is given). */
export const silentLogger: HeraldLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return silentLogger;
  },
};
