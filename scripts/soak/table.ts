/**
 * The soak's result as a Markdown table, each figure next to its [H20] goal and whether it met
 * it — ready to paste into a note.
 *
 * @module
 */
import type { BurstReport } from "../lib/load/webhookBurst.ts";

/** How the burst was run, for the table's caption. */
export type RunInfo = {
  connections: number;
  concurrency: number;
  cli: string;
  seconds: number;
  load: string;
};

const yes = (ok: boolean) => (ok ? "met" : "**not met**");

/** Renders `report` (see `runWebhookBurst`) as a Markdown table. */
export function burstTable(report: BurstReport, run: RunInfo): string {
  const f = report.fates;
  const runs = Object.entries(report.handlerRuns)
    .map(([times, n]) => `${n} × ${times}`)
    .join(", ");
  const killHeldMax = report.kills * run.concurrency;
  const h = report.heldByCause;
  const answerFaults =
    (report.faultsInjected.status_500 ?? 0) + (report.faultsInjected.reset_after_accept ?? 0);
  const totalRuns = Object.entries(report.handlerRuns).reduce((n, [k, v]) => n + Number(k) * v, 0);
  const runsOk =
    (report.handlerRuns["0"] ?? 0) === 0 &&
    report.extraRuns === 0 &&
    totalRuns === report.updates + report.interruptedRuns;
  const maxOf = (values: number[]) => (values.length === 0 ? 0 : Math.max(...values));
  const rows: Array<[string, string, string, string]> = [
    ["lost (no reply, nothing held or failed)", String(f.lost), "0", yes(f.lost === 0)],
    ["duplicated (more than one reply)", String(f.duplicated), "0", yes(f.duplicated === 0)],
    [
      "answered once",
      String(f.answered),
      "every message not held",
      yes(f.answered + f.held_kill + f.held_answer === report.updates),
    ],
    [
      "held: left in `sending` by a kill",
      `${h.kill.total} (${h.kill.delivered} of them delivered; in \`sending\` at the kills: ${report.sendingAtKill.join(" + ") || 0})`,
      `≤ ${report.kills} kills × ${run.concurrency} = ${killHeldMax}`,
      yes(h.kill.total <= killHeldMax),
    ],
    [
      "held: answered 5xx / reset / timed out (`maybe_sent`, unkeyed)",
      `${h.answer.total} (${h.answer.delivered} of them delivered)`,
      `≤ the ${answerFaults} faulty 5xx + reset answers`,
      yes(h.answer.total <= answerFaults),
    ],
    [
      "failed / unsettled at the end",
      `${f.failed} / ${f.unsettled}`,
      "0 / 0",
      yes(f.failed + f.unsettled === 0),
    ],
    [
      "handler runs per message",
      `${runs}; ${report.interruptedRuns} cut short by a kill, ${report.extraRuns} after a durable reply`,
      "1 each (+ runs a kill cut short)",
      yes(runsOk),
    ],
    [
      `webhook ack, steady (${report.acks} acks)`,
      `p50 ${report.ackP50Ms} ms, p99 ${report.ackP99Ms} ms, max ${report.ackMaxMs} ms`,
      `p99 ≤ 500 ms at ${run.connections} connections`,
      yes(report.ackP99Ms <= 500),
    ],
    [
      `webhook ack, sent during a restart (${report.restartAcks} acks)`,
      `p99 ${report.restartAckP99Ms} ms, max ${report.restartAckMaxMs} ms`,
      "(no goal: waits for the new process)",
      "",
    ],
    [
      "`/livez` after each restart",
      `${report.livezAfterRestartMs.join(", ") || "–"} ms`,
      "≤ 1000 ms",
      yes(maxOf(report.livezAfterRestartMs) <= 1000),
    ],
    [
      "`/healthz` 200 after each restart",
      `${report.readyAfterRestartMs.join(", ") || "–"} ms`,
      "(readiness; no goal)",
      "",
    ],
  ];
  const faults = Object.entries(report.faultsInjected)
    .map(([k, n]) => `${n} ${k}`)
    .join(", ");
  return [
    `${report.updates} updates, ${run.connections} connections, ${report.kills} SIGKILLs, faulty sends: ${faults || "none"}; ${run.cli} CLI, delivery.concurrency ${run.concurrency}; ${run.seconds} s; ${run.load}`,
    "",
    "| measure | result | goal | |",
    "| --- | --- | --- | --- |",
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
}
