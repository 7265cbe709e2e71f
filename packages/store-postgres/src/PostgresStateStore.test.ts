import { describeStateStoreConformance } from "@herald/core/contract";
import { newIntent, outboundMessage } from "@herald/core/testing";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresStateStore } from "./PostgresStateStore.ts";
import { locationOf, openStore } from "./testing/openStore.ts";
import {
  dropSchemas,
  freshSchemaName,
  postgresAvailable,
  requirePostgresOrSkip,
  TEST_POSTGRES_URL,
} from "./testing/postgresTest.ts";

const available = requirePostgresOrSkip(await postgresAvailable());
const schemas: string[] = [];
const fresh = () => {
  const schema = freshSchemaName();
  schemas.push(schema);
  return schema;
};
const connect = (options: { clock?: () => number } = {}) =>
  PostgresStateStore.connect({ connectionString: TEST_POSTGRES_URL, schema: fresh(), ...options });
afterAll(() => dropSchemas(schemas));

describe.skipIf(!available)("PostgresStateStore", () => {
  describeStateStoreConformance({
    name: "postgres",
    create: () => connect(),
    crash: {
      storeModule: new URL("./testing/openStore.ts", import.meta.url).href,
      location: async () => locationOf(TEST_POSTGRES_URL, fresh()),
      open: openStore,
    },
  });

  describe("PostgresStateStore specifics", () => {
    it("treats an intent without nextAttemptAt as due even for a worker whose clock is behind", async () => {
      // The enqueuing process's clock runs 5 s ahead of the leasing worker's.
      const store = await connect({ clock: () => Date.now() + 5_000 });
      try {
        await store.enqueueIntents([newIntent()]);
        const leased = await store.leaseDueIntents({
          owner: "w",
          now: Date.now(),
          leaseMs: 1_000,
          limit: 1,
        });
        expect(leased).toHaveLength(1);
      } finally {
        await store.close();
      }
    });

    it("keeps NUL characters and lone surrogates in JSON payloads exactly", async () => {
      const store = await connect();
      try {
        const text = "a\u0000b \ud800 c";
        const [r] = await store.enqueueIntents([newIntent(outboundMessage(text))]);
        expect((await store.getIntent(r?.intent.id ?? ""))?.message.body?.markdown).toBe(text);
        const letter = await store.putDeadLetter({
          channel: "telegram",
          raw: { text },
          error: { name: "E", message: "m" },
          receivedAt: 1,
        });
        expect((await store.getDeadLetter(letter.id))?.raw).toEqual({ text });
      } finally {
        await store.close();
      }
    });

    it("refuses to lease statuses other than pending and unknown_after_send", async () => {
      const store = new PostgresStateStore({
        connectionString: TEST_POSTGRES_URL,
        schema: fresh(),
      });
      try {
        await expect(
          store.leaseDueIntents({
            owner: "w",
            now: 0,
            leaseMs: 1,
            limit: 1,
            statuses: ["sent" as "pending"],
          }),
        ).rejects.toBeInstanceOf(TypeError);
      } finally {
        await store.close();
      }
    });
  });
});
