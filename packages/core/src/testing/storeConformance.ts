/**
 * The state store conformance suite (DESIGN §3): one function that registers Vitest tests for
 * any {@link MessageStateStore} factory. `SqliteStateStore` and `PostgresStateStore` both pass
 * it unchanged; a third-party store calls it from its own test file.
 *
 * @module
 */
import { afterEach, beforeEach, describe } from "vitest";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import { crashTests } from "./conformance/crash.ts";
import { dedupeTests } from "./conformance/dedupe.ts";
import type { StateStoreHarness, StoreContext } from "./conformance/harness.ts";
import { intentTests } from "./conformance/intents.ts";
import { leaseTests } from "./conformance/leases.ts";
import { miscTests } from "./conformance/misc.ts";
import { recoveryTests } from "./conformance/recovery.ts";
import { registryTests } from "./conformance/registry.ts";

export type { StateStoreHarness } from "./conformance/harness.ts";

/**
 * Registers the conformance tests for a store.
 *
 * @param harness - how to create fresh stores (and, optionally, how to crash-test them).
 * @example
 * describeStateStoreConformance({ name: "sqlite (memory)", create: async () => new SqliteStateStore({ path: ":memory:" }) });
 */
export function describeStateStoreConformance(harness: StateStoreHarness): void {
  describe(`MessageStateStore conformance: ${harness.name}`, () => {
    let current: MessageStateStore | undefined;
    beforeEach(async () => {
      current = await harness.create();
    });
    afterEach(async () => {
      await current?.close();
      current = undefined;
    });
    const ctx: StoreContext = {
      store() {
        if (!current) throw new Error("store used outside a test");
        return current;
      },
    };
    intentTests(ctx);
    leaseTests(ctx);
    recoveryTests(ctx);
    registryTests(ctx);
    dedupeTests(ctx);
    miscTests(ctx, () => harness.create());
    if (harness.crash) crashTests(harness.crash);
  });
}
