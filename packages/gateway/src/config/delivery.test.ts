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

it("C55 maxAgeMs from the config: per gateway and per channel id, a bad one refused naming the field", () => {
  expect(
    deliveryOptionsOf(
      config({
        delivery: {
          workerId: "w1",
          maxAgeMs: 600_000,
          channels: { telegram: { maxAgeMs: 60_000 } },
        },
      }),
    ),
  ).toEqual({ workerId: "w1", maxAgeMs: 600_000, channelMaxAgeMs: { telegram: 60_000 } });
  expect(() => config({ delivery: { maxAgeMs: -5 } })).toThrow(/delivery\.maxAgeMs/);
  expect(() => config({ delivery: { channels: { slack: { maxAge: 1 } } } })).toThrow(
    /delivery\.channels\.slack/,
  );
});
