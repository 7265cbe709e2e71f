/**
 * A gateway's delivery options from its config (DESIGN §3–4, recovery).
 *
 * @module
 */
import type { DeliveryOptions } from "@herald/core";
import type { HeraldConfig } from "./schema.ts";

/**
 * Worker id of a gateway on a SQLite store when `delivery.workerId` is not set. One gateway holds
 * a SQLite file at a time (`StoreLockedError`), so every lease an earlier `"gateway"` process left
 * on it belongs to a process that is gone.
 */
export const SQLITE_GATEWAY_WORKER_ID = "gateway";

/**
 * The `delivery` section of a config as runtime options (unset fields left out).
 *
 * On SQLite the worker id defaults to {@link SQLITE_GATEWAY_WORKER_ID}: a gateway restarted after
 * a crash then recovers at once what the crashed one left leased (a `sending` reply goes to
 * `unknown_after_send` and is reconciled, an unfinished inbound runs again) instead of waiting
 * out its lease (`delivery.leaseMs`, 30 s by default), while later replies to that chat wait
 * behind it. On PostgreSQL several gateways share one store, so each process keeps a random id
 * unless `delivery.workerId` names one (then it must be unique per process).
 */
export function deliveryOptionsOf(config: HeraldConfig): DeliveryOptions {
  const { channels, ...rest } = config.delivery;
  const set = Object.fromEntries(
    Object.entries(rest).filter(([, v]) => v !== undefined),
  ) as DeliveryOptions;
  const channelMaxAgeMs = Object.fromEntries(
    Object.entries(channels ?? {}).flatMap(([channel, c]) =>
      c.maxAgeMs === undefined ? [] : [[channel, c.maxAgeMs]],
    ),
  );
  if (Object.keys(channelMaxAgeMs).length > 0) set.channelMaxAgeMs = channelMaxAgeMs;
  if (set.workerId === undefined && "sqlite" in config.store)
    return { ...set, workerId: SQLITE_GATEWAY_WORKER_ID };
  return set;
}
