/**
 * Ids that need their container (DESIGN §8): a Slack message is `channel` + `ts`, a Matrix
 * event `room` + `event id`, a Telegram message `chat` + `message_id`. A receipt part, a reply
 * target or an edit target holds one string, so the two halves travel as one **ref**:
 * `<container>:<id>`, with `%` and `:` inside either half escaped (`%25`, `%3A`) so that ids
 * which contain colons themselves (Matrix `!room:example.org`) survive the round trip. A ref
 * whose halves contain neither reads as written (`C024BE91L:1700000000.000100`).
 *
 * @module
 */
import { HeraldError } from "@herald/core";

/**
 * A ref that is not `<container>:<id>`: empty, a half missing, more than one unescaped `:`, or
 * a `%` that is not `%25` / `%3A`. Code `HERALD_MALFORMED_REF`. `label` names what the ref was
 * meant to be (e.g. `"Slack message ref"`), `ref` is the input as given.
 */
export class MalformedRefError extends HeraldError {
  /** The input as given. */
  readonly ref: string;
  /** What was wrong with it. */
  readonly reason: string;
  constructor(ref: string, reason: string, label = "ref") {
    super("HERALD_MALFORMED_REF", `${label} ${JSON.stringify(ref)} is malformed: ${reason}`);
    this.ref = ref;
    this.reason = reason;
  }
}

/** The two halves of a ref. */
export type ParsedRef = {
  /** The channel, room or chat id. */
  container: string;
  /** The id inside it (message ts, event id, message id). */
  id: string;
};

/** Options of {@link parseRef}. */
export type ParseRefOptions = {
  /**
   * The container of a bare id (a ref without `:`), e.g. the chat a reply is sent to.
   * @defaultValue none: a bare id is malformed
   */
  fallbackContainer?: string;
  /** Names the ref in errors. @defaultValue "ref" */
  label?: string;
};

const escapeHalf = (part: string) => part.replaceAll("%", "%25").replaceAll(":", "%3A");

function unescapeHalf(part: string, ref: string, label: string | undefined): string {
  return part.replace(/%(..)?/g, (match, hex: string | undefined, offset: number) => {
    const code = hex?.toUpperCase();
    if (code === "25") return "%";
    if (code === "3A") return ":";
    throw new MalformedRefError(
      ref,
      `bad escape ${JSON.stringify(match)} (only %25 and %3A) in ${JSON.stringify(part)} at offset ${offset}`,
      label,
    );
  });
}

/**
 * Joins a container and an id into one ref.
 *
 * @param container - the channel, room or chat id; not empty.
 * @param id - the id inside it; not empty.
 * @throws MalformedRefError when either half is empty.
 * @example
 * composeRef("C024BE91L", "1700000000.000100") // → "C024BE91L:1700000000.000100"
 * composeRef("!room:example.org", "$ev") // → "!room%3Aexample.org:$ev"
 */
export function composeRef(container: string, id: string): string {
  if (container === "" || id === "") {
    const which = container === "" ? "container" : "id";
    throw new MalformedRefError(`${container}:${id}`, `the ${which} is empty`);
  }
  return `${escapeHalf(container)}:${escapeHalf(id)}`;
}

/**
 * Splits a ref made by {@link composeRef} into its container and id.
 *
 * @throws MalformedRefError when the ref is empty, has more than one unescaped `:`, has an
 *   empty half, carries a bad escape, or is a bare id without `fallbackContainer`.
 * @example
 * parseRef("C024BE91L:1700000000.000100") // → { container: "C024BE91L", id: "1700000000.000100" }
 * parseRef("42", { fallbackContainer: "-100123" }) // → { container: "-100123", id: "42" }
 */
export function parseRef(ref: string, options: ParseRefOptions = {}): ParsedRef {
  const { label, fallbackContainer } = options;
  if (typeof ref !== "string" || ref === "") {
    throw new MalformedRefError(String(ref), "it is empty", label);
  }
  const parts = ref.split(":");
  if (parts.length > 2) {
    throw new MalformedRefError(
      ref,
      `${parts.length - 1} unescaped ":" (one separates container and id; escape others as %3A)`,
      label,
    );
  }
  const [first = "", second] = parts;
  if (second === undefined) {
    if (fallbackContainer === undefined) {
      throw new MalformedRefError(ref, 'no container (expected "<container>:<id>")', label);
    }
    return { container: fallbackContainer, id: unescapeHalf(first, ref, label) };
  }
  if (first === "") throw new MalformedRefError(ref, "the container is empty", label);
  if (second === "") throw new MalformedRefError(ref, "the id is empty", label);
  return { container: unescapeHalf(first, ref, label), id: unescapeHalf(second, ref, label) };
}
