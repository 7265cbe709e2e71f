// Arguments the worker cannot structured-clone the way JSON writes them: the worker store must
// write (or reject) exactly what the in-thread store does.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newIntent, outboundMessage } from "../../../testing/fixtures.ts";
import { StoreUnavailableError } from "../../errors.ts";
import type { MessageStateStore } from "../../MessageStateStore.ts";
import { SqliteStateStore } from "../SqliteStateStore.ts";
import { openSqliteStateStore, type SqliteWorkerStore } from "./SqliteWorkerStore.ts";

const dir = mkdtempSync(join(tmpdir(), "herald-sqlite-worker-values-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

class SdkObject {
  id: string;
  client: { self?: unknown; on: () => void };
  constructor(id: string) {
    this.id = id;
    // What SDK objects look like: a back reference and functions, flattened by toJSON.
    this.client = { on: () => {} };
    this.client.self = this.client;
  }
  toJSON() {
    return { sdk: this.id };
  }
}

/** Payloads JSON and structured clone treat differently. */
const payloads: Record<string, () => unknown> = {
  function: () => ({ x: 1, f: () => 1 }),
  symbol: () => ({ s: Symbol("s"), t: "kept" }),
  buffer: () => ({ body: Buffer.from("hi") }),
  "class instance with toJSON": () => ({ raw: new SdkObject("7") }),
  proxy: () => new Proxy({ p: 1 }, {}),
  url: () => ({ link: new URL("http://127.0.0.1/x") }),
  date: () => ({ at: new Date(0) }),
  "cycle (rejected by both)": () => {
    const o: Record<string, unknown> = {};
    o.self = o;
    return o;
  },
  "BigInt behind a proxy (rejected by both)": () => new Proxy({ n: 1n }, {}),
  "a shared node": () => {
    const shared = { a: 1, u: undefined };
    return { x: shared, y: [shared, shared] };
  },
  "600 levels deep": () => {
    let v: unknown = { leaf: true };
    for (let i = 0; i < 600; i++) v = { v };
    return v;
  },
};

describe("SqliteWorkerStore writes what the in-thread store writes", () => {
  let local: SqliteStateStore;
  let worker: SqliteWorkerStore;
  beforeAll(async () => {
    local = new SqliteStateStore({ path: join(dir, "local.db") });
    worker = await openSqliteStateStore({ path: join(dir, "worker.db") });
  });
  afterAll(async () => {
    await local.close();
    await worker.close();
  });

  const outcome = (p: Promise<unknown>) =>
    p.then(
      (value) => ({ ok: JSON.stringify(value) }),
      (e: unknown) => ({
        error: e instanceof StoreUnavailableError ? e.message : `not typed: ${String(e)}`,
      }),
    );

  for (const [name, make] of Object.entries(payloads)) {
    it(`ledger data: ${name}`, async () => {
      const write = (s: MessageStateStore) =>
        outcome(
          s
            .appendLedger([{ conversation: name, type: "t", at: 1, data: make() }])
            .then((events) => events.map((e) => e.data)),
        );
      expect(await write(worker)).toEqual(await write(local));
    });
  }

  it("an inbound message's raw SDK object and a dedupe meta with functions", async () => {
    const run = async (s: MessageStateStore) => {
      const message = { ...outboundMessage("hi"), raw: new SdkObject("m1") };
      const [created] = await s.enqueueIntents([newIntent(message, { idempotencyKey: "k1" })]);
      const key = { channel: "qa", eventId: "e1" };
      await s.acquireDedupe(key, { owner: "o", now: 1, leaseMs: 1000 });
      await s.completeDedupe(key, { owner: "o", now: 2, meta: { n: 1, cb: () => 0 } });
      return {
        raw: (await s.getIntent(created?.intent.id ?? ""))?.message.raw,
        dedupe: await s.getDedupe(key),
      };
    };
    const [w, l] = [await run(worker), await run(local)];
    expect(w).toEqual(l);
    expect(w.raw).toEqual({ sdk: "m1" });
  });

  it("one call that cannot be written does not fail the others of its tick", async () => {
    const [bad, good] = await Promise.allSettled([
      worker.appendLedger([
        { conversation: "c", type: "t", at: 1, data: new Proxy({ n: 1n }, {}) },
      ]),
      worker.appendLedger([{ conversation: "c", type: "t", at: 1, data: { fine: true } }]),
    ]);
    expect(bad.status).toBe("rejected");
    expect((bad as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
    expect(good.status).toBe("fulfilled");
  });
});
