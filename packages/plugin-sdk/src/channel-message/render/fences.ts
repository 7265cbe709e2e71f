/**
 * Fenced code blocks (CommonMark §4.5) found line by line: an opening line of up to three
 * spaces, three or more backticks or tildes and an info string; a closing line of the same
 * character, at least as long. An unclosed fence runs to the end. Fences inside block quotes or
 * list items (`> ```) are not tracked.
 *
 * @module
 */

/** One fenced code block, positions in UTF-16 units. */
export type Fence = {
  /** Start of the opening line. */
  start: number;
  /** First position after the opening line (after its newline). */
  contentStart: number;
  /** Start of the closing line; `text.length` when unclosed. */
  closeStart: number;
  /** End of the closing line, before its newline; `text.length` when unclosed. */
  closeEnd: number;
  closed: boolean;
  /** The opening line with its newline, e.g. "```ts\n" — re-sent to re-open the fence. */
  openLine: string;
  /** The fence characters, e.g. "```" or "~~~~" — sent to close the fence. */
  marker: string;
};

const OPEN = /^ {0,3}(`{3,}|~{3,})([^\n]*)$/;
const CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*\r?$/;

/** Every fenced code block of `text`, in order. */
export function scanFences(text: string): Fence[] {
  const fences: Fence[] = [];
  let open: { start: number; contentStart: number; marker: string } | undefined;
  let lineStart = 0;
  for (;;) {
    const nl = text.indexOf("\n", lineStart);
    const lineEnd = nl === -1 ? text.length : nl;
    const line = text.slice(lineStart, lineEnd);
    if (!open) {
      const m = OPEN.exec(line);
      const marker = m?.[1];
      if (marker && !(marker[0] === "`" && (m[2] ?? "").includes("`"))) {
        open = { start: lineStart, contentStart: nl === -1 ? text.length : nl + 1, marker };
      }
    } else {
      const marker = CLOSE.exec(line)?.[1];
      if (marker && marker[0] === open.marker[0] && marker.length >= open.marker.length) {
        fences.push(fence(text, open, lineStart, lineEnd, true));
        open = undefined;
      }
    }
    if (nl === -1) break;
    lineStart = nl + 1;
  }
  if (open) fences.push(fence(text, open, text.length, text.length, false));
  return fences;
}

function fence(
  text: string,
  open: { start: number; contentStart: number; marker: string },
  closeStart: number,
  closeEnd: number,
  closed: boolean,
): Fence {
  return {
    ...open,
    closeStart,
    closeEnd,
    closed,
    openLine: text.slice(open.start, open.contentStart),
  };
}

/**
 * The fence a cut at `p` falls inside — the chunk ending there must close it and the next one
 * re-open it. From the end of the opening line up to the start of the closing line.
 */
export function fenceAt(fences: readonly Fence[], p: number): Fence | undefined {
  let lo = 0;
  let hi = fences.length - 1;
  let found: Fence | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const f = fences[mid] as Fence;
    if (f.contentStart <= p) {
      found = f;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (!found) return undefined;
  return p < found.closeStart || (found.closed && p === found.closeStart) ? found : undefined;
}

/**
 * Positions a cut should avoid: inside an opening line or right after it (the chunk would end
 * in an empty block), and from the start of a closing line to its end (the next chunk would
 * begin with a bare closing fence).
 */
export function fenceAvoidMask(length: number, fences: readonly Fence[]): Uint8Array {
  const avoid = new Uint8Array(length + 1);
  for (const f of fences) {
    avoid.fill(1, f.start + 1, f.contentStart + 1);
    if (f.closed) avoid.fill(1, f.closeStart, f.closeEnd);
  }
  return avoid;
}
