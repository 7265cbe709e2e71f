/**
 * Property-based tests (fast-check): random text with emoji, ZWJ sequences, flags, combining
 * marks, astral characters, whitespace and code fences, at random limits.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitCaption } from "./caption.ts";
import { chunkTextWithEntities } from "./chunk-entities.ts";
import { chunkText } from "./chunk-text.ts";
import type { TextEntityRange } from "./entity-types.ts";
import { scanFences } from "./fences.ts";
import { graphemes } from "./graphemes.ts";
import { parseMarkdown } from "./markdown.ts";
import { type LengthMeasure, measureLength } from "./measure.ts";
import { renderTextWithEntities } from "./render-entities.ts";

/** `FC_RUNS=20000 pnpm exec vitest run …/properties.test.ts` for a deeper search. */
const runs = { numRuns: Number(process.env.FC_RUNS ?? 300) };

const pieces = [
  ..."abcXYZ019.,!?-",
  " ",
  "  ",
  "\t",
  "\n",
  "\n\n",
  "\r\n",
  "é",
  "e\u0301",
  "\u0301\u0302",
  "中文",
  "😀",
  "👍🏽",
  "👨‍👩‍👧",
  "🇩🇪",
  "𝒳",
  "\u200d",
  "```",
  "```ts\n",
  "\n```\n",
  "~~~\n",
  "`",
  "[x](https://e.x)",
];
const textArb = fc.oneof(
  fc.string({ unit: fc.constantFrom(...pieces), maxLength: 80 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
);
const measureArb = fc.constantFrom<LengthMeasure>("utf16", "codePoints", "utf8Bytes");

/** Boundaries of the input's grapheme clusters, with each cluster's measure. */
function clusters(text: string, measure: LengthMeasure) {
  const boundaries = new Set([0, text.length]);
  const sizeAt = new Map<number, number>();
  for (const { segment, index } of graphemes(text)) {
    boundaries.add(index);
    for (let k = index + 1; k < index + segment.length; k++)
      sizeAt.set(k, measureLength(segment, measure));
  }
  return { boundaries, sizeAt };
}

/** Chunk ranges tile the input, apart from whitespace-only gaps (blank chunks left out). */
function expectTiling(text: string, ranges: ReadonlyArray<{ start: number; end: number }>): void {
  let at = 0;
  for (const { start, end } of ranges) {
    expect(start).toBeGreaterThanOrEqual(at);
    expect(text.slice(at, start).trim()).toBe("");
    expect(end).toBeGreaterThan(start);
    at = end;
  }
  expect(text.slice(at).trim()).toBe("");
}

describe("chunkText properties", () => {
  it("every chunk fits, is well-formed, cuts only at grapheme boundaries, and the slices rebuild the input", () => {
    fc.assert(
      fc.property(
        textArb,
        fc.integer({ min: 4, max: 80 }),
        measureArb,
        (text, maxLength, measure) => {
          const chunks = chunkText(text, { maxLength, measure });
          const { boundaries, sizeAt } = clusters(text, measure);
          for (const c of chunks) {
            expect(measureLength(c.text, measure)).toBeLessThanOrEqual(maxLength);
            expect(c.text).toBe(c.reopen + text.slice(c.start, c.end) + c.close);
            expect(c.text.isWellFormed()).toBe(true);
            expect(c.text.trim()).not.toBe("");
            for (const cut of [c.start, c.end]) {
              // Only a cluster that alone exceeds the limit is split (at code points).
              if (!boundaries.has(cut)) expect(sizeAt.get(cut)).toBeGreaterThan(maxLength);
            }
          }
          expectTiling(text, chunks);
        },
      ),
      runs,
    );
  });

  /** Documents of prose and fenced blocks (``` / ~~~ / ````, with or without a language). */
  const lineArb = fc.string({
    unit: fc.constantFrom(...pieces.filter((p) => !/[`~\n]/.test(p))),
    maxLength: 30,
  });
  const fenceArb = fc
    .tuple(
      fc.constantFrom("```", "~~~", "````"),
      fc.constantFrom("", "ts", "python title=x"),
      fc.array(lineArb, { maxLength: 12 }),
    )
    .map(([marker, info, lines]) => `${marker}${info}\n${lines.join("\n")}\n${marker}`);
  const docArb = fc
    .tuple(
      fc.array(fc.oneof(lineArb, fenceArb), { maxLength: 8 }),
      fc.constantFrom("\n", "\n\n"),
      fc.boolean(),
    )
    .map(
      ([blocks, sep, unclosedTail]) =>
        blocks.join(sep) + (unclosedTail ? `${sep}\`\`\`js\nopen();` : ""),
    );

  it("no chunk ends inside a fence it opened: every fence is closed within its chunk", () => {
    fc.assert(
      fc.property(
        fc.oneof(textArb, docArb),
        fc.integer({ min: 40, max: 120 }),
        (text, maxLength) => {
          const chunks = chunkText(text, { maxLength });
          const inputFences = scanFences(text);
          const inputEndsOpen = inputFences.at(-1)?.closed === false;
          // The documented guarantee: markers are kept whenever they fit with the largest grapheme.
          const markers = Math.max(
            0,
            ...inputFences.map((f) => f.openLine.length + f.marker.length + 1),
          );
          const cluster = Math.max(0, ...[...graphemes(text)].map((g) => g.segment.length));
          fc.pre(maxLength >= markers + cluster);
          chunks.forEach((c, k) => {
            const open = scanFences(c.text).filter((f) => !f.closed);
            const isLast = k === chunks.length - 1;
            if (!(isLast && inputEndsOpen)) expect(open, JSON.stringify(c)).toEqual([]);
            if (c.reopen) expect(inputFences.some((f) => f.openLine === c.reopen)).toBe(true);
          });
        },
      ),
      runs,
    );
  });

  it("the fence scanner agrees with the CommonMark parser on top-level fences", () => {
    const fencePieces = [
      ..."ab `~",
      " ",
      "\n",
      "\n\n",
      "😀",
      "```",
      "```ts\n",
      "````\n",
      "~~~\n",
      "~~~ x\n",
    ];
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...fencePieces), maxLength: 60 }), (text) => {
        const lineOf = (offset: number) => text.slice(0, offset).split("\n").length;
        const fenced = parseMarkdown(text).children.flatMap((node) => {
          const start = node.position?.start.offset ?? 0;
          return node.type === "code" &&
            /^ {0,3}[`~]/.test(text.slice(start - (node.position?.start.column ?? 1) + 1))
            ? [lineOf(start)]
            : [];
        });
        expect(scanFences(text).map((f) => lineOf(f.start))).toEqual(fenced);
      }),
      runs,
    );
  });
});

describe("chunkTextWithEntities properties", () => {
  const entityArb = (length: number) =>
    fc.array(
      fc
        .tuple(fc.integer({ min: 0, max: length }), fc.integer({ min: 0, max: length }))
        .map(([a, b]) => ({ offset: Math.min(a, b), length: Math.abs(a - b) })),
      { maxLength: 8 },
    );
  const inputArb = textArb.chain((text) =>
    entityArb(text.length).map((entities) => ({
      text,
      entities: entities.map((e, id) => ({ ...e, id })),
    })),
  );

  it("entities lie inside their chunk and together cover exactly the original ranges", () => {
    fc.assert(
      fc.property(inputArb, fc.integer({ min: 4, max: 60 }), (input, maxLength) => {
        const chunks = chunkTextWithEntities(input, { maxLength });
        expectTiling(input.text, chunks);
        const pieces = new Map<number, Array<[number, number]>>();
        for (const c of chunks) {
          expect(c.text.length).toBeLessThanOrEqual(maxLength);
          expect(c.text.isWellFormed()).toBe(true);
          expect(c.text).toBe(input.text.slice(c.start, c.end));
          for (const e of c.entities) {
            expect(e.offset).toBeGreaterThanOrEqual(0);
            expect(e.length).toBeGreaterThan(0);
            expect(e.offset + e.length).toBeLessThanOrEqual(c.text.length);
            pieces.set(e.id, [
              ...(pieces.get(e.id) ?? []),
              [c.start + e.offset, c.start + e.offset + e.length],
            ]);
          }
        }
        for (const e of input.entities) {
          const expected = chunks.flatMap((c): Array<[number, number]> => {
            const from = Math.max(e.offset, c.start);
            const to = Math.min(e.offset + e.length, c.end);
            return to > from ? [[from, to]] : [];
          });
          expect(pieces.get(e.id) ?? []).toEqual(expected);
        }
      }),
      runs,
    );
  });
});

describe("renderTextWithEntities properties", () => {
  const mdPieces = [
    ...pieces,
    "**",
    "*",
    "_",
    "~~",
    "[",
    "](https://e.x)",
    "> ",
    "- ",
    "1. ",
    "# ",
    "|",
    "\n---\n",
    "\\",
    "<b>",
    "&amp;",
    "- [ ] ",
    "[^1]",
    "\n[^1]: note\n",
    "    ",
  ];

  it("never throws; entities are in range, sorted, and never nest into themselves or into code", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...mdPieces), maxLength: 60 }), (md) => {
        const { text, entities } = renderTextWithEntities(md);
        expect(text.isWellFormed()).toBe(md.isWellFormed());
        let last = -1;
        for (const e of entities) {
          expect(e.length).toBeGreaterThan(0);
          expect(e.offset + e.length).toBeLessThanOrEqual(text.length);
          expect(e.offset).toBeGreaterThanOrEqual(last);
          last = e.offset;
        }
        // Sorted outer first: an entity overlapping a later one must contain it.
        entities.forEach((a, i) => {
          for (const b of entities.slice(i + 1)) {
            if (b.offset >= a.offset + a.length) continue;
            const why = JSON.stringify({ md, a, b });
            expect(b.offset + b.length, why).toBeLessThanOrEqual(a.offset + a.length);
            expect(a.type, why).not.toBe(b.type);
            expect(["code", "pre"], why).not.toContain(a.type);
          }
        });
      }),
      runs,
    );
  });

  it("plain prose comes out character for character (nothing escaped)", () => {
    const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,8}[.,!?:;'")-]?$/);
    const tail = fc.stringMatching(/^[A-Za-z0-9(-][A-Za-z0-9]{0,8}[.,!?:;'")-]?$/);
    const prose = fc
      .tuple(word, fc.array(tail, { maxLength: 12 }))
      .map(([w, ws]) => [w, ...ws].join(" "));
    fc.assert(
      fc.property(prose, (text) => {
        expect(renderTextWithEntities(text).text).toBe(text);
      }),
      runs,
    );
  });
});

describe("splitCaption properties", () => {
  it("the caption fits, nothing but whitespace is lost, and 'separate' never cuts", () => {
    fc.assert(
      fc.property(
        textArb,
        fc.integer({ min: 4, max: 60 }),
        fc.constantFrom<"separate" | "split">("separate", "split"),
        (text, maxLength, overflow) => {
          const input = { text, entities: [] as TextEntityRange[] };
          const { caption, rest } = splitCaption(input, { maxLength, overflow });
          if (caption) {
            expect(caption.text.length).toBeLessThanOrEqual(maxLength);
            expect(caption.text.isWellFormed()).toBe(true);
          }
          if (overflow === "separate")
            expect(caption === undefined || caption.text === text).toBe(true);
          const squash = (s: string) => s.replace(/\s+/g, "");
          expect(squash((caption?.text ?? "") + (rest?.text ?? ""))).toBe(squash(text));
          expect(rest?.text.isWellFormed() ?? true).toBe(true);
        },
      ),
      runs,
    );
  });
});
