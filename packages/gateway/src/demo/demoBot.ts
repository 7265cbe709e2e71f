/**
 * The demo bot of `herald demo`: answers every message with a streamed reply (a live preview
 * edited as words arrive, then the durable final) after simulated tool activity.
 *
 * Also usable as a `handler` module in a config: `"handler": "<path to this file>"`.
 *
 * @module
 */
import { sleep } from "@herald/core";
import type { BotTurn } from "../bot/BotTurn.ts";

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

/** The demo handler. */
export default async function demoBot(turn: BotTurn): Promise<void> {
  await turn.activity({
    role: "tool",
    name: "search",
    input: turn.text.slice(0, 60),
    content: "3 results",
  });
  await sleep(delayMs * 3, turn.signal);
  await turn.activity({ role: "tool", name: "summarize", input: "3 results", content: "done" });
  await turn.reply(words(demoAnswer(turn.text), turn.signal));
}
