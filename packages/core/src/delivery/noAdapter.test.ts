/**
 * [H17] follow-up 4: intents of an account with no adapter in this process (credentials
 * rejected: the account is stopped) are parked with backoff and logged once per account, not
 * leased, warned about and released on every poll. Nothing is lost: they are sent once the
 * account's adapter is registered.
 */
import { afterEach, expect, it } from "vitest";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { newIntent, outboundMessage } from "../testing/fixtures.ts";
import { NO_ADAPTER_PARK_MS } from "./noAdapter.ts";
import { eventually } from "./testing/harness.ts";

let runtime: MessageRuntime | undefined;
afterEach(async () => {
  await runtime?.stop(0);
  runtime = undefined;
});

it("parks a stopped account's intents (one log line, no attempt used) and sends them once it is up", async () => {
  const platform = new FakePlatform();
  const store = new SqliteStateStore({ path: ":memory:" });
  const warnings: string[] = [];
  const logger = {
    debug: () => {},
    info: () => {},
    warn: (_o: object, msg?: string) => void warnings.push(msg ?? ""),
    error: () => {},
    child: () => logger,
  };
  runtime = createMessageRuntime({ store, adapters: [], logger, delivery: { pollIntervalMs: 5 } });
  const adapter = createFakeAdapter({ transport: inProcessTransport(platform) });
  runtime.addAdapter(adapter, "up"); // "stopped" has no adapter: its credentials were rejected
  await store.enqueueIntents(
    ["t1", "t2", "t3"].map((t) =>
      newIntent(outboundMessage(t, { accountId: "stopped", target: { id: t } })),
    ),
  );
  await runtime.start();
  const started = Date.now();
  await new Promise((r) => setTimeout(r, 300)); // ~60 polls at 5 ms
  const parked = await store.listIntents();
  expect(parked.map((i) => [i.status, i.attempt])).toEqual([
    ["pending", 0],
    ["pending", 0],
    ["pending", 0],
  ]);
  for (const i of parked) {
    expect(i.leaseOwner ?? null).toBeNull();
    expect(i.nextAttemptAt).toBeGreaterThanOrEqual(started + NO_ADAPTER_PARK_MS.first - 50);
  }
  const noAdapter = warnings.filter((w) => w.includes("no adapter"));
  expect(noAdapter).toHaveLength(1);
  expect(noAdapter[0]).toMatch(/qa\/stopped[\s\S]*fix: start the account[\s\S]*herald doctor/);

  runtime.addAdapter(adapter, "stopped"); // the account came up
  await eventually(
    () => store.countIntents(),
    (c) => c.sent === 3,
    5_000,
  );
  for (const t of ["t1", "t2", "t3"]) expect(platform.visible(t).map((m) => m.text)).toEqual([t]);
});

it("an adapter registered later makes its parked intents due at once, not at the end of their wait", async () => {
  const platform = new FakePlatform();
  const store = new SqliteStateStore({ path: ":memory:" });
  // The runtime's clock stops once the intents are parked for 2 s: their wait never ends, so
  // only the registration can make them due (an ordering, not a duration: it holds on a busy
  // machine).
  let stoppedAt: number | undefined;
  const clock = () => stoppedAt ?? Date.now();
  runtime = createMessageRuntime({ store, adapters: [], clock, delivery: { pollIntervalMs: 5 } });
  await store.enqueueIntents(
    ["p1", "p2"].map((t) =>
      newIntent(outboundMessage(t, { accountId: "late", target: { id: t } })),
    ),
  );
  await runtime.start();
  // Parked once (1 s), leased again, parked for 2 s: the account is still opening.
  const parked = await eventually(
    () => store.listIntents(),
    (list) =>
      list.every((i) => (i.nextAttemptAt ?? 0) - Date.now() > NO_ADAPTER_PARK_MS.first * 1.2),
    5_000,
  );
  stoppedAt = Date.now();
  const parkedUntil = Math.min(...parked.map((i) => i.nextAttemptAt ?? 0));
  expect(stoppedAt).toBeLessThan(parkedUntil);
  runtime.addAdapter(createFakeAdapter({ transport: inProcessTransport(platform) }), "late");
  await eventually(
    () => store.countIntents(),
    (c) => c.sent === 2,
    5_000,
  );
  expect((await store.listIntents()).map((i) => i.attempt)).toEqual([1, 1]);
});
