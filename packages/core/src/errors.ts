/**
 * herald's typed errors. Every error has a stable `code` (greppable in logs) and a message that
 * says what was wrong and where.
 *
 * @module
 */

/** Base class of every error herald throws on purpose. */
export class HeraldError extends Error {
  /** Stable machine-readable code, e.g. `HERALD_ILLEGAL_TRANSITION`. */
  readonly code: string;
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A feature that is declared but not built yet. Never a silent no-op. */
export class NotImplementedError extends HeraldError {
  readonly feature: string;
  constructor(feature: string, hint = "") {
    super("HERALD_NOT_IMPLEMENTED", `${feature} is not implemented${hint ? `: ${hint}` : ""}`);
    this.feature = feature;
  }
}

/** No channel adapter is registered for a channel id (send or receive). */
export class UnknownChannelError extends HeraldError {
  readonly channel: string;
  constructor(channel: string, known: readonly string[] = []) {
    super(
      "HERALD_UNKNOWN_CHANNEL",
      `no channel adapter "${channel}" is registered${known.length ? ` (registered: ${known.join(", ")})` : ""}; register its plugin first`,
    );
    this.channel = channel;
  }
}
