/**
 * The demo bot of `herald demo`: answers every message with a streamed reply (a live preview
 * edited as words arrive, then the durable final) after simulated tool activity, showing "👀" on
 * the message while it works ([H23]). A message mentioning "deploy" gets an "Approve?" question
 * with two buttons (the click is answered by {@link onAction}); one mentioning "report" gets a
 * file reply.
 *
 * Also usable as a `handler` module in a config: `"handler": "<path to this file>"`.
 *
 * @module
 */
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sleep } from "@herald/core";
import type { BotTurn } from "../bot/BotTurn.ts";
import type { BotAction } from "../bot/features.ts";

/** Milliseconds between streamed words (env `HERALD_DEMO_DELAY_MS`). @defaultValue 120 */
const delayMs = Number(process.env.HERALD_DEMO_DELAY_MS ?? 120);

/** The words of the demo answer to `text`. */
export function demoAnswer(text: string): string {
  const said = text.trim().slice(0, 200) || "(nothing)";
  return `You said: "${said}". This reply was streamed as a live preview, then delivered durably — kill the gateway mid-reply and it still arrives exactly once.`;
}

async function* words(text: string, signal: AbortSignal): AsyncGenerator<string> {
  const parts = text.split(/(?<= )/);
  for (const part of parts) {
    await sleep(delayMs, signal);
    yield part;
  }
}

/** The report file the demo sends (an SVG chart, so the web page shows it inline). */
async function reportFile(): Promise<string> {
  const path = join(tmpdir(), "herald-demo-report.svg");
  const bars = [42, 77, 58, 91]
    .map(
      (h, i) => `<rect x="${20 + i * 45}" y="${110 - h}" width="30" height="${h}" fill="#2b6cb0"/>`,
    )
    .join("");
  await writeFile(
    path,
    `<svg xmlns="http://www.w3.org/2000/svg" width="210" height="130"><rect width="210" height="130" fill="#f7fafc"/>${bars}<text x="20" y="125" font-size="11" font-family="sans-serif">deliveries per day</text></svg>`,
  );
  return path;
}

/** Whether the platform can show reactions (the demo runs on others too, as a handler module). */
async function tryReact(turn: BotTurn, emoji: string, remove = false): Promise<void> {
  try {
    await (remove ? turn.unreact(emoji) : turn.react(emoji));
  } catch (error) {
    if ((error as { code?: string }).code !== "HERALD_NOT_SUPPORTED") throw error;
  }
}

/** The demo handler. */
export default async function demoBot(turn: BotTurn): Promise<void> {
  await tryReact(turn, "👀");
  if (/\bdeploy\b/i.test(turn.text)) {
    await turn.reply({
      text: "Deploy `main` to production. Approve?",
      actions: [
        { kind: "button", id: "approve", label: "Approve", value: "deploy:main", style: "primary" },
        { kind: "button", id: "reject", label: "Reject", style: "danger" },
      ],
    });
    await tryReact(turn, "👀", true);
    return;
  }
  if (/\breport\b/i.test(turn.text)) {
    await turn.reply({
      text: "Here is this week's delivery report.",
      files: [
        { kind: "image", path: await reportFile(), name: "report.svg", mimeType: "image/svg+xml" },
      ],
    });
    await tryReact(turn, "👀", true);
    return;
  }
  await turn.activity({
    role: "tool",
    name: "search",
    input: turn.text.slice(0, 60),
    content: "3 results",
  });
  await sleep(delayMs * 3, turn.signal);
  await turn.activity({ role: "tool", name: "summarize", input: "3 results", content: "done" });
  await turn.reply(words(demoAnswer(turn.text), turn.signal));
  await tryReact(turn, "👀", true);
  await tryReact(turn, "✅");
}

/** The demo's click handler: answers the "Approve?" buttons. */
export async function onAction(action: BotAction): Promise<void> {
  const who = action.user.displayName ?? action.user.id;
  await action.reply(
    action.actionId === "approve"
      ? `✅ Approved by ${who}: deploying \`main\` (${action.value ?? ""}).`
      : `❌ Rejected by ${who}: nothing deployed.`,
  );
}
