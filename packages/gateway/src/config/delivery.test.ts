/**
 * A gateway on SQLite (one per file) recovers what its crashed predecessor left leased at once:
 * its worker id is stable, so the predecessor's leases are an earlier incarnation's (recovery,
 * core `delivery/recovery.ts`). On PostgreSQL every process keeps its own random id. End to end:
 * scripts/lib/readme-bot.test.ts (SIGKILL right after the reply shows, then the next reply).
 */
import { expect, it } from "vitest";
import { deliveryOptionsOf, SQLITE_GATEWAY_WORKER_ID } from "./delivery.ts";
import { parseConfig } from "./load.ts";

const config = (extra: object) => parseConfig({ channels: [], ...extra }, "herald.json");

it("SQLite: the worker id defaults to the gateway's stable one; a set one and PostgreSQL are kept", () => {
  expect(deliveryOptionsOf(config({}))).toEqual({ workerId: SQLITE_GATEWAY_WORKER_ID });
  expect(deliveryOptionsOf(config({ delivery: { workerId: "w1", leaseMs: 5000 } }))).toEqual({
    workerId: "w1",
    leaseMs: 5000,
  });
  expect(
    deliveryOptionsOf(config({ store: { postgres: { urlEnv: "DATABASE_URL" } } })).workerId,
  ).toBeUndefined();
});
