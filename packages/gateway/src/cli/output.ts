/**
 * Terminal output helpers of the CLI: tables, progress, times.
 *
 * @module
 */
import Table from "cli-table3";

/** Where command output goes (a TTY gets colours and in-place progress). */
export type Out = { write(text: string): unknown; isTTY?: boolean };

/** Writes a table to stdout (plain ASCII when not a TTY, so it pipes cleanly). */
export function printTable(
  head: string[],
  rows: Array<Array<string | number>>,
  out: Out = process.stdout,
): void {
  const table = new Table({
    head,
    style: { head: out.isTTY ? ["cyan"] : [], border: out.isTTY ? ["grey"] : [] },
  });
  for (const row of rows) table.push(row.map(String));
  out.write(`${table.toString()}\n`);
}

/** "3 s ago", "in 2 min" — relative to `now`, for epoch-ms times. */
export function relativeTime(ms: number | undefined, now = Date.now()): string {
  if (ms === undefined) return "";
  if (ms > 8e15) return "held";
  const d = Math.round((ms - now) / 1000);
  const abs = Math.abs(d);
  const text =
    abs < 60
      ? `${abs} s`
      : abs < 3600
        ? `${Math.round(abs / 60)} min`
        : `${Math.round(abs / 3600)} h`;
  return d >= 0 ? `in ${text}` : `${text} ago`;
}

/** A one-line progress reporter for long operations (recover, bulk retry). */
export function progress(
  label: string,
  total: number,
  err: Out = process.stderr,
): (done: number) => void {
  let last = -1;
  return (done) => {
    const pct = total === 0 ? 100 : Math.floor((done / total) * 100);
    if (pct === last && done !== total) return;
    last = pct;
    const line = `${label}: ${done}/${total} (${pct}%)`;
    if (err.isTTY) err.write(`\r${line}${done === total ? "\n" : ""}`);
    else if (done === total || pct % 25 === 0) err.write(`${line}\n`);
  };
}
