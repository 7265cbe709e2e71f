/**
 * Segments: the rendered units a live session shows, one per platform message. Previews and the
 * final are cut the same way, so the final's units map onto existing previews by index (C15: a
 * long stream's full previews equal the final's first chunks and are kept).
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { ChannelMessageAdapter } from "../adapter/types.ts";
import type { RenderedMessageUnit } from "../message/batch.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { LiveMode } from "./types.ts";

/** A short hash of a rendered unit (kind + payload): equal hashes mean an edit would change nothing. */
export function unitHash(unit: Pick<RenderedMessageUnit, "kind" | "payload">): string {
  return createHash("sha256")
    .update(`${unit.kind}\u0000${JSON.stringify(unit.payload)}`)
    .digest("hex")
    .slice(0, 20);
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;

/**
 * Splits markdown into blocks at blank lines outside fenced code. A block counts as complete
 * once a blank line follows it; `final` includes the last, unfinished one.
 *
 * @example splitBlocks("a\n\nb", false) → ["a"]; splitBlocks("a\n\nb", true) → ["a", "b"]
 */
export function splitBlocks(text: string, final: boolean): string[] {
  const blocks: string[] = [];
  const lines = text.split("\n");
  let current: string[] = [];
  let fence: string | undefined;
  for (const [i, line] of lines.entries()) {
    const isLast = i === lines.length - 1; // text after the last newline: still being written
    const marker = FENCE.exec(line)?.[1];
    if (marker) {
      if (fence === undefined) fence = marker[0];
      else if (marker[0] === fence) fence = undefined;
    }
    if (fence === undefined && line.trim() === "" && !isLast && !marker) {
      if (current.length > 0) blocks.push(current.join("\n"));
      current = [];
      continue;
    }
    current.push(line);
  }
  const tail = current.join("\n");
  if (final && tail.trim() !== "") blocks.push(tail);
  return blocks;
}

/** Renders one message through the adapter, units re-indexed from `from`. */
export async function renderUnits(
  adapter: ChannelMessageAdapter,
  message: ChannelMessage,
  idempotencyKey: string,
  from = 0,
): Promise<RenderedMessageUnit[]> {
  const batch = await adapter.render.render(message, {
    idempotencyKey,
    capabilities: adapter.capabilities,
  });
  return batch.units.map((u, i) => ({ ...u, index: from + i }));
}

/**
 * The units a session shows for its current input: `partial` — the text (or, before any text,
 * the progress line), cut into platform messages; `block` — each completed block (all blocks
 * when `final`); `progress` — the progress line's first unit (the final: the whole text).
 */
export async function segmentsOf(
  adapter: ChannelMessageAdapter,
  base: ChannelMessage,
  mode: LiveMode,
  input: { text: string; progress: string },
  final: boolean,
  idempotencyKey: string,
): Promise<RenderedMessageUnit[]> {
  const withText = (markdown: string): ChannelMessage => ({ ...base, body: { markdown } });
  if (mode === "block") {
    const units: RenderedMessageUnit[] = [];
    for (const block of splitBlocks(input.text, final)) {
      units.push(...(await renderUnits(adapter, withText(block), idempotencyKey, units.length)));
    }
    return units;
  }
  const shown =
    final || mode === "partial" || mode === "native"
      ? input.text || (final ? "" : input.progress)
      : input.progress;
  if (shown.trim() === "") return [];
  const units = await renderUnits(adapter, withText(shown), idempotencyKey);
  return mode === "progress" && !final ? units.slice(0, 1) : units;
}
