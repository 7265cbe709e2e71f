/**
 * Conformance: crash safety with real child processes SIGKILLed mid-transaction.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { newIntent, outboundMessage } from "../fixtures.ts";
import { scaledMs } from "../timeScale.ts";
import type { StateStoreHarness } from "./harness.ts";

// Source: src/testing/conformance/crash.ts → ../crashChild.ts. Built: dist/testing/index.mjs → ./crashChild.mjs.
const childUrl = import.meta.url.endsWith(".ts")
  ? new URL("../crashChild.ts", import.meta.url)
  : new URL("./crashChild.mjs", import.meta.url);

function runChild(
  storeModule: string,
  location: string,
  scenario: string,
  arg: string,
  failpoints = "",
) {
  // From source, let the child resolve workspace packages to their sources too.
  const conditions = import.meta.url.endsWith(".ts") ? ["--conditions=herald-source"] : [];
  return spawnSync(
    process.execPath,
    [...conditions, fileURLToPath(childUrl), storeModule, location, scenario, arg],
    {
      env: { ...process.env, HERALD_FAILPOINTS: failpoints },
      encoding: "utf8",
      timeout: scaledMs(30_000),
    },
  );
}

export function crashTests(crash: NonNullable<StateStoreHarness["crash"]>): void {
  const open = (location: string) => crash.open(location);
  describe("crash safety (SIGKILL)", () => {
    it("leaves no part of an enqueue batch when killed mid-transaction", async () => {
      const location = await crash.location();
      const r = runChild(
        crash.storeModule,
        location,
        "enqueue-batch",
        "k",
        "store.mid_transaction=kill@10",
      );
      expect(r.signal).toBe("SIGKILL");
      const store = await open(location);
      try {
        expect(await store.listIntents({ limit: 1000 })).toEqual([]);
      } finally {
        await store.close();
      }
    });

    it("leaves every intent in its old status when a transition batch is killed", async () => {
      const location = await crash.location();
      const store = await open(location);
      await store.enqueueIntents(
        Array.from({ length: 20 }, (_, i) =>
          newIntent(outboundMessage(`m${i}`, { target: { id: `c${i}` } })),
        ),
      );
      await store.close();
      const r = runChild(
        crash.storeModule,
        location,
        "transition-batch",
        "",
        "store.mid_transaction=kill@5",
      );
      expect(r.signal).toBe("SIGKILL");
      const reopened = await open(location);
      try {
        const counts = await reopened.countIntents();
        expect(counts).toMatchObject({ pending: 20, sending: 0 });
      } finally {
        await reopened.close();
      }
    });

    it("keeps a committed write after the process is killed", async () => {
      const location = await crash.location();
      const r = runChild(crash.storeModule, location, "commit-then-die", "durable-key");
      expect(r.stdout).toContain("committed");
      expect(r.signal).toBe("SIGKILL");
      const store = await open(location);
      try {
        expect((await store.getIntentByIdempotencyKey("durable-key"))?.message.body?.markdown).toBe(
          "durable",
        );
      } finally {
        await store.close();
      }
    });

    it("keeps every concurrent write whose promise resolved before the kill (group commit)", async () => {
      const location = await crash.location();
      const r = runChild(crash.storeModule, location, "group-commit-then-die", "g");
      expect(r.signal).toBe("SIGKILL");
      const lines = r.stdout.trim().split("\n");
      const enqueued = lines.filter((l) => l.startsWith("enqueued ")).map((l) => l.slice(9));
      const cancelled = lines.filter((l) => l.startsWith("cancelled ")).map((l) => l.slice(10));
      // The child died right after a later wave resolved: earlier waves are reported too.
      expect(enqueued.length).toBeGreaterThanOrEqual(20);
      expect(cancelled.length).toBeGreaterThanOrEqual(1);
      const store = await open(location);
      try {
        for (const key of enqueued)
          expect(await store.getIntentByIdempotencyKey(key)).toBeDefined();
        for (const key of cancelled) {
          expect((await store.getIntentByIdempotencyKey(key))?.status).toBe("cancelled");
        }
      } finally {
        await store.close();
      }
    });
  });
}
