/**
 * What became of each message of a webhook burst (`webhookBurst.ts`), read from the platform
 * fake's chats, the gateway's SQLite file and the handler's own run log once the burst settled.
 *
 * Every update is one private chat, so every chat must end with exactly one reply. A chat
 * without one is not "lost" when herald still shows its reply to an operator:
 * - **held**: the reply's intent is `unknown_after_send` (Telegram has no idempotency key: a
 *   send whose outcome is unknown waits for `herald queue retry|cancel` under the `hold`
 *   policy). Split by cause: **kill** — the intent was in `sending` when a SIGKILL hit (at most
 *   `concurrency` per kill); **answer** — the platform answered the call with a 5xx, reset the
 *   connection or timed out (`maybe_sent`) and the probe could not prove it sent (the probe
 *   needs an earlier message of this bot in the chat from this process: a burst's chats have
 *   none, and a restart forgets them);
 * - **failed**: the intent failed for good (visible in `herald queue ls`);
 * - **unsettled**: the intent is still pending or sending when the burst stopped waiting.
 * **Lost** is what is left: no reply and no intent at all — silently lost.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";

/** What became of one message. */
export type MessageFate =
  | "answered"
  | "duplicated"
  | "held_kill"
  | "held_answer"
  | "failed"
  | "unsettled"
  | "lost";

/** Messages whose reply is held, by cause; `delivered`: the platform shows the reply anyway. */
export type HeldCount = { total: number; delivered: number };

/** The accounting of a burst. */
export type BurstAccount = {
  /** Messages per fate. */
  fates: Record<MessageFate, number>;
  /**
   * Every message with a held intent, by cause, whether or not the platform shows its reply
   * (a send that landed but whose answer was lost is held too: an operator checks the chat
   * before `herald queue retry`, which would post it again).
   */
  held: { kill: HeldCount; answer: HeldCount };
  /** Held intents by failure (kind/evidence: message, its first 80 characters). */
  heldReasons: Record<string, number>;
  /** Intents by status. */
  intents: Record<string, number>;
  /** Handler runs per message: how many messages ran 0, 1, 2… times. */
  handlerRuns: Record<string, number>;
  /** Runs a SIGKILL interrupted before their reply was durable (see `BurstReport`). */
  interruptedRuns: number;
  /** Runs after a durable reply, or twice in one process (goal 0). */
  extraRuns: number;
  /** One line per message whose fate is not `answered` or whose handler did not run once. */
  details: string[];
};

type IntentRow = {
  id: string;
  status: string;
  turn_id: string | null;
  message_json: string;
  failure_json: string | null;
};

const HELD = "unknown_after_send";

/** The reason of a stored failure, for the table: `kind/evidence: message` (80 characters). */
function reasonOf(failure: string | null): string {
  let reason = failure ?? "";
  try {
    const f = JSON.parse(reason) as { kind?: string; evidence?: string; message?: string };
    reason = `${f.kind}/${f.evidence}: ${f.message ?? ""}`;
  } catch {}
  return reason.slice(0, 80);
}

/**
 * Accounts for `replies.length` messages named `m<i>` (the burst's texts; the handler answers
 * `re: m<i>`).
 *
 * @param o.replies - replies the platform shows in message i's chat.
 * @param o.sendingAtKill - ids of the intents in `sending` right after each kill.
 * @param o.killedPids - processes killed by the burst (their handler runs may be cut short).
 */
export function accountBurst(o: {
  dbPath: string;
  runsFile: string;
  replies: readonly number[];
  sendingAtKill: ReadonlySet<string>;
  killedPids: ReadonlySet<number>;
}): BurstAccount {
  const db = new DatabaseSync(o.dbPath, { readOnly: true });
  const rows = db
    .prepare("SELECT id, status, turn_id, message_json, failure_json FROM intents")
    .all() as IntentRow[];
  db.close();

  const intents: Record<string, number> = {};
  const heldReasons: Record<string, number> = {};
  const byMessage = new Map<string, IntentRow[]>();
  const turnsWithIntent = new Set<string>();
  for (const row of rows) {
    intents[row.status] = (intents[row.status] ?? 0) + 1;
    if (row.status === HELD) {
      const reason = reasonOf(row.failure_json);
      heldReasons[reason] = (heldReasons[reason] ?? 0) + 1;
    }
    if (row.turn_id) turnsWithIntent.add(row.turn_id);
    const text = /re: (m\d+)/.exec(row.message_json)?.[1];
    if (text) byMessage.set(text, [...(byMessage.get(text) ?? []), row]);
  }

  // Handler runs, counted by the handler itself (fsynced before it goes on).
  const runs = new Map<string, number>();
  const answering = new Map<string, number>();
  let interruptedRuns = 0;
  let extraRuns = 0;
  for (const line of readFileSync(o.runsFile, "utf8").split("\n").filter(Boolean)) {
    const [text = "", turnId = "", pid = ""] = line.split(" ");
    runs.set(text, (runs.get(text) ?? 0) + 1);
    if (turnsWithIntent.has(turnId)) answering.set(text, (answering.get(text) ?? 0) + 1);
    else if (o.killedPids.has(Number(pid))) interruptedRuns++;
    else extraRuns++;
  }
  for (const n of answering.values()) extraRuns += n - 1;

  const fates: Record<MessageFate, number> = {
    answered: 0,
    duplicated: 0,
    held_kill: 0,
    held_answer: 0,
    failed: 0,
    unsettled: 0,
    lost: 0,
  };
  const held = { kill: { total: 0, delivered: 0 }, answer: { total: 0, delivered: 0 } };
  const handlerRuns: Record<string, number> = {};
  const details: string[] = [];
  o.replies.forEach((count, i) => {
    const text = `m${i}`;
    const own = byMessage.get(text) ?? [];
    const heldRows = own.filter((r) => r.status === HELD);
    const cause = heldRows.some((r) => o.sendingAtKill.has(r.id)) ? "kill" : "answer";
    if (heldRows.length > 0) {
      held[cause].total += 1;
      if (count > 0) held[cause].delivered += 1;
    }
    let fate: MessageFate;
    if (count > 1) fate = "duplicated";
    else if (count === 1) fate = "answered";
    else if (heldRows.length > 0) fate = cause === "kill" ? "held_kill" : "held_answer";
    else if (own.some((r) => r.status === "failed")) fate = "failed";
    else if (own.length > 0) fate = "unsettled";
    else fate = "lost";
    fates[fate] += 1;
    const n = runs.get(text) ?? 0;
    handlerRuns[n] = (handlerRuns[n] ?? 0) + 1;
    if (fate !== "answered" || n !== 1) {
      const statuses = own.map((r) => r.status).join(",") || "no intent";
      details.push(`${text}: ${fate}, handler ran ${n}×, ${count} replies, intents: ${statuses}`);
    }
  });
  return { fates, held, heldReasons, intents, handlerRuns, interruptedRuns, extraRuns, details };
}
