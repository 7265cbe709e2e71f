/**
 * Typed errors of the render helpers. Both are programming errors in the caller (a limit or an
 * entity that cannot be right), never platform failures.
 *
 * @module
 */
import { HeraldError } from "@herald/core";

/**
 * A length limit the helpers cannot honour: `maxLength` is not a positive integer, or one code
 * point alone is longer than `maxLength` (e.g. an emoji, 2 UTF-16 units, at a limit of 1).
 * Code `HERALD_RENDER_LIMIT`.
 */
export class RenderLimitError extends HeraldError {
  /** The limit that was asked for, in units of the measure in use. */
  readonly maxLength: number;
  constructor(maxLength: number, reason: string) {
    super("HERALD_RENDER_LIMIT", `maxLength ${maxLength}: ${reason}`);
    this.maxLength = maxLength;
  }
}

/**
 * An entity whose range does not lie inside its text: `offset` / `length` not non-negative
 * integers, or `offset + length` past the end (UTF-16 units). Code `HERALD_ENTITY_RANGE`.
 */
export class EntityRangeError extends HeraldError {
  /** Index of the entity in the input array. */
  readonly index: number;
  constructor(index: number, offset: number, length: number, textLength: number) {
    super(
      "HERALD_ENTITY_RANGE",
      `entities[${index}] {offset: ${offset}, length: ${length}} does not lie inside the text (${textLength} UTF-16 units)`,
    );
    this.index = index;
  }
}
