/**
 * `herald demo` keeps its own folder and never deletes a store: state of an earlier run (or of
 * a bot that was pointed at the same folder) survives a demo start, the default store of
 * `herald()` / `herald start` (`.herald/state.db`) is not the demo's, a second demo on the same
 * folder is refused (lock), and the printed hints are runnable as printed.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStateStore } from "@herald/core";
import { newIntent, outboundMessage } from "@herald/core/testing";
import { describe, expect, it } from "vitest";
import { StoreLockedError } from "../../store/storeLock.ts";
import { DEMO_DIR, heraldCommand, startDemo } from "./demo.ts";

describe("herald demo", () => {
  it("has its own folder, not the default store of herald() and herald start", () => {
    expect(DEMO_DIR).toBe(join(".herald", "demo"));
  });

  it("keeps a store it did not create, and refuses a second demo on the same folder", async () => {
    const dir = mkdtempSync(join(tmpdir(), "herald-demo-"));
    const existing = new SqliteStateStore({ path: join(dir, "state.db") });
    const [kept] = await existing.enqueueIntents([newIntent(outboundMessage("keep me"))]);
    await existing.close();
    const demo = await startDemo({ port: 0, dir });
    try {
      const reader = new SqliteStateStore({ path: join(dir, "state.db") });
      expect((await reader.getIntent(kept?.intent.id ?? ""))?.message.body?.markdown).toBe(
        "keep me",
      );
      await reader.close();
      await expect(startDemo({ port: 0, dir })).rejects.toBeInstanceOf(StoreLockedError);
      expect(existsSync(demo.configFile)).toBe(true);
    } finally {
      await demo.stop();
    }
    const again = await startDemo({ port: 0, dir }); // after a stop the lock is free again
    await again.stop();
  });

  it("prints CLI hints that run as printed: the repo's bootstrap from a checkout", () => {
    expect(heraldCommand(join(import.meta.dirname, "../../../../.."))).toBe(
      "./scripts/bootstrap.sh pnpm herald",
    );
  });
});
