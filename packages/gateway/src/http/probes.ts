/**
 * Liveness and readiness ([H20] item 9, docs/operations.md "Probes").
 *
 * - Liveness (`/livez`): the process serves HTTP. Never touches the store, so a store outage
 *   or a long startup recovery never gets the gateway killed in a loop.
 * - Readiness (`/readyz`, and `/healthz` for compatibility): the store can be read *and
 *   written* (a small write of the probe's own watermark, at most once per `cacheMs`), plus the
 *   gateway's phase and each account's health.
 *
 * Neither names the database file nor repeats a store error's message (it may carry a path or
 * a URL): the answer carries the error code only; the full error goes to the (redacting) logger.
 *
 * @module
 */
import type { HeraldLogger, IntentStatus, MessageStateStore } from "@herald/core";
import type { AccountHealth } from "../accounts/AccountSupervisor.ts";

/** Where the gateway is in its life: `recovering` serves webhooks while startup recovery runs. */
export type GatewayPhase = "starting" | "recovering" | "ready" | "stopping";

/** What one store probe found. */
export type StoreProbe =
  | { up: true; queue: Record<IntentStatus, number> }
  | { up: false; failed: "read" | "write"; code: string };

/** The watermark key the readiness probe writes (its value: the probe's epoch ms). */
export const PROBE_WATERMARK = { channel: "herald.health", source: "readyz" } as const;

/**
 * Probes the store: reads the queue counts, then writes {@link PROBE_WATERMARK}. The result is
 * reused for `cacheMs` so a burst of probes costs one write. Failures are logged (warn) once
 * per probe, never thrown.
 */
export function storeProber(options: {
  store: MessageStateStore;
  logger: HeraldLogger;
  clock?: () => number;
  /** @defaultValue 1000 */
  cacheMs?: number;
  /** Who probes, first in the log line. @defaultValue "readiness" */
  what?: string;
}): () => Promise<StoreProbe> {
  const clock = options.clock ?? Date.now;
  const cacheMs = options.cacheMs ?? 1000;
  let last: { at: number; probe: Promise<StoreProbe> } | undefined;
  const run = async (): Promise<StoreProbe> => {
    let step: "read" | "write" = "read";
    try {
      const queue = await options.store.countIntents();
      step = "write";
      await options.store.setWatermark(PROBE_WATERMARK, String(clock()));
      return { up: true, queue };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      options.logger.warn(
        { err: error, step },
        `${options.what ?? "readiness"}: the state store cannot be ${step === "read" ? "read" : "written"}`,
      );
      return {
        up: false,
        failed: step,
        code: typeof code === "string" ? code : "HERALD_STORE_UNAVAILABLE",
      };
    }
  };
  return () => {
    const now = clock();
    if (!last || now - last.at >= cacheMs) last = { at: now, probe: run() };
    return last.probe;
  };
}

/** The readiness answer: HTTP status and body. */
export async function readiness(
  probe: () => Promise<StoreProbe>,
  phase: GatewayPhase,
  accounts: readonly AccountHealth[],
): Promise<{ httpStatus: 200 | 503; body: Record<string, unknown> }> {
  const store = await probe();
  if (!store.up) {
    return {
      httpStatus: 503,
      body: {
        status: "unavailable",
        phase,
        store: { up: false, failed: store.failed, code: store.code },
        accounts,
      },
    };
  }
  if (phase === "starting" || phase === "stopping")
    return {
      httpStatus: 503,
      body: { status: phase, phase, store: { up: true }, queue: store.queue, accounts },
    };
  // Recovery runs in the background while webhooks are served: ready for traffic (200).
  // One account down degrades the gateway; it is still serving the others (200).
  const status =
    phase === "recovering"
      ? "recovering"
      : accounts.every((a) => a.state === "up")
        ? "ok"
        : "degraded";
  return {
    httpStatus: 200,
    body: { status, phase, store: { up: true }, queue: store.queue, accounts },
  };
}
