/**
 * What the receive-side bench's load generator (`run.ts`) and its receivers (`server.ts`) share:
 * the receivers' names and the secrets requests are signed with.
 *
 * @module
 */

/** The receivers compared (see `server.ts`). */
export type IngestKind = "bare" | "herald" | "herald-inthread" | "bolt";

/** Telegram's webhook `secret_token`, sent in `X-Telegram-Bot-Api-Secret-Token`. */
export const TELEGRAM_SECRET = "bench-webhook-secret_token";
/** The Slack app's signing secret (Bolt checks `x-slack-signature` with it). */
export const SLACK_SIGNING_SECRET = "bench-slack-signing-secret";
/** The herald bot's token (its id names the bot; the Bot API is never called). */
export const BOT_TOKEN = "7000001:AAHbenchBotTokenForTheIngestBench_x";
/** `GET` this path on any receiver: the process's CPU time so far (every thread), in ms. */
export const CPU_PATH = "/__bench/cpu";
