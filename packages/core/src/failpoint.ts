/**
 * Failpoints: named lifecycle boundaries that do nothing unless armed through the environment
 * (the fail-rs / FoundationDB technique; DESIGN §9). Crash tests start a real child process with
 * one armed, let it die, restart it without, and assert what survived.
 *
 * Arm with `HERALD_FAILPOINTS="send.after_sending=kill;store.mid_transaction=throw"`. Actions:
 * - `kill`: SIGKILL the process on the spot (no cleanup, no flush: a real crash),
 * - `throw`: throw a {@link FailpointError},
 * - `delay:<ms>`: block the event loop for that many milliseconds,
 * - `<action>@<n>`: fire only on the n-th hit (1-based), e.g. `kill@3`.
 *
 * @module
 */
import { HeraldError } from "./errors.ts";

/** Thrown by a failpoint armed with `throw`. */
export class FailpointError extends HeraldError {
  readonly failpoint: string;
  constructor(name: string) {
    super("HERALD_FAILPOINT", `failpoint ${name} fired`);
    this.failpoint = name;
  }
}

type Armed = { action: "kill" | "throw" | "delay"; delayMs: number; onHit: number | undefined };

let parsed: Map<string, Armed> | undefined;
const hits = new Map<string, number>();

function armed(): Map<string, Armed> {
  if (parsed) return parsed;
  parsed = new Map();
  for (const entry of (process.env.HERALD_FAILPOINTS ?? "").split(";")) {
    const [name, spec] = entry.split("=").map((s) => s.trim());
    if (!name || !spec) continue;
    const [actionSpec = "", hitSpec] = spec.split("@");
    const [action, arg] = actionSpec.split(":");
    if (action !== "kill" && action !== "throw" && action !== "delay") continue;
    parsed.set(name, {
      action,
      delayMs: Number(arg ?? 0),
      onHit: hitSpec ? Number(hitSpec) : undefined,
    });
  }
  return parsed;
}

/**
 * Marks a lifecycle boundary. A no-op unless `HERALD_FAILPOINTS` arms `name`.
 *
 * @throws {@link FailpointError} when armed with `throw`.
 */
export function failpoint(name: string): void {
  const fp = armed().get(name);
  if (!fp) return;
  const n = (hits.get(name) ?? 0) + 1;
  hits.set(name, n);
  if (fp.onHit !== undefined && fp.onHit !== n) return;
  if (fp.action === "kill") process.kill(process.pid, "SIGKILL");
  if (fp.action === "throw") throw new FailpointError(name);
  if (fp.action === "delay")
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, fp.delayMs);
}

/** Re-reads `HERALD_FAILPOINTS` (tests that change it in-process). */
export function resetFailpoints(): void {
  parsed = undefined;
  hits.clear();
}
