/**
 * `herald deadletters ls|show`: the inbound events herald could not read (unparseable or
 * invalid platform payloads), kept as dead letters instead of being dropped. Replaying one is
 * not implemented in the CLI yet (it needs the running gateway's handler).
 *
 * @module
 */
import type { DeadLetter, MessageStateStore } from "@herald/core";
import { CliUsageError } from "../cliErrors.ts";
import { type Out, printTable, relativeTime } from "../output.ts";

const STATUSES: readonly DeadLetter["status"][] = ["new", "replayed", "discarded"];

/**
 * Lists dead letters, newest first as the store returns them, with the error that made each one.
 *
 * @throws CliUsageError for an unknown status.
 */
export async function deadLettersList(
  store: MessageStateStore,
  options: { status?: string; channel?: string; limit?: number } = {},
  redact: (text: string) => string = (t) => t,
  out: Out = process.stdout,
): Promise<void> {
  if (options.status && !(STATUSES as readonly string[]).includes(options.status))
    throw new CliUsageError(
      `unknown status "${options.status}"; use one of: ${STATUSES.join(", ")}`,
    );
  const letters = await store.listDeadLetters({
    ...(options.status ? { status: options.status as DeadLetter["status"] } : {}),
    ...(options.channel ? { channel: options.channel } : {}),
    limit: options.limit ?? 50,
  });
  if (letters.length === 0) {
    out.write("no dead letters: every inbound event was readable\n");
    return;
  }
  const now = Date.now();
  printTable(
    ["id", "channel/account", "status", "received", "error"],
    letters.map((l) => [
      l.id,
      `${l.channel}/${l.accountId ?? "default"}`,
      l.replayCount > 0 ? `${l.status} (${l.replayCount}×)` : l.status,
      relativeTime(l.receivedAt, now),
      redact(`${l.error.code ? `${l.error.code}: ` : ""}${l.error.message}`).slice(0, 80),
    ]),
    out,
  );
  out.write(
    `${letters.length} dead letter(s); herald deadletters show <id> prints the raw event\n`,
  );
}

/** Prints one dead letter in full (raw event and error, secrets redacted). @returns false when unknown. */
export async function deadLetterShow(
  store: MessageStateStore,
  id: string,
  redact: (text: string) => string,
  out: Out = process.stdout,
): Promise<boolean> {
  const letter = await store.getDeadLetter(id);
  if (!letter) return false;
  out.write(`${redact(JSON.stringify(letter, null, 2))}\n`);
  return true;
}
