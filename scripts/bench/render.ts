/**
 * `pnpm bench:render`: how long `chunkMarkdown` takes to cut a long markdown message in each
 * dialect (serialize calls per chunk and milliseconds per message), next to the string
 * chunker `chunkText` on the same source.
 *
 * Options: `--paragraphs <n>` (default 500, about 41,500 characters), `--rounds <n>` (default 5).
 */
import { parseArgs } from "node:util";
import {
  chunkMarkdown,
  chunkText,
  type MdastRoot,
  parseMarkdown,
  renderDiscord,
  renderGoogleChat,
  renderMatrix,
  renderSlack,
} from "../../packages/plugin-sdk/src/channel-message/index.ts";

const { values } = parseArgs({
  options: {
    paragraphs: { type: "string", default: "500" },
    rounds: { type: "string", default: "5" },
  },
});
const paragraph =
  "Some **bold text** and _italic_ with [a link](https://example.com/x) & <tags> 😀.\n\n";
const source = paragraph.repeat(Number(values.paragraphs));
const rounds = Number(values.rounds);
const tree = parseMarkdown(source);

type Case = {
  name: string;
  maxLength: number;
  measure?: "utf8Bytes";
  serialize: (t: MdastRoot) => string;
};
const cases: Case[] = [
  { name: "slack mrkdwn @4000", maxLength: 4000, serialize: (t) => renderSlack(t) },
  { name: "discord @2000", maxLength: 2000, serialize: (t) => renderDiscord(t) },
  { name: "google chat @4096", maxLength: 4096, serialize: (t) => renderGoogleChat(t) },
  {
    name: "matrix content @60000 B",
    maxLength: 60_000,
    measure: "utf8Bytes",
    serialize: (t) => JSON.stringify(renderMatrix(t)),
  },
];

console.log(`chunkMarkdown on ${source.length} characters, best of ${rounds}`);
for (const c of cases) {
  let best = Number.POSITIVE_INFINITY;
  let calls = 0;
  let chunks = 0;
  for (let r = 0; r < rounds; r++) {
    calls = 0;
    const t0 = performance.now();
    chunks = chunkMarkdown(tree, {
      maxLength: c.maxLength,
      ...(c.measure ? { measure: c.measure } : {}),
      serialize: (t) => {
        calls++;
        return c.serialize(t);
      },
    }).length;
    best = Math.min(best, performance.now() - t0);
  }
  const perChunk = (calls / chunks).toFixed(1);
  console.log(
    `  ${c.name.padEnd(24)} ${String(chunks).padStart(3)} chunks  ${perChunk.padStart(5)} serialize calls/chunk  ${best.toFixed(0).padStart(5)} ms`,
  );
}
let best = Number.POSITIVE_INFINITY;
for (let r = 0; r < rounds; r++) {
  const t0 = performance.now();
  chunkText(source, { maxLength: 4000 });
  best = Math.min(best, performance.now() - t0);
}
console.log(
  `  ${"chunkText @4000".padEnd(24)} (string chunker, for comparison)  ${best.toFixed(0).padStart(5)} ms`,
);
