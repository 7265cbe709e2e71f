// Real child processes: the worker keeps the process alive exactly while calls (or close) are
// in flight, never while idle.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scaledMs } from "../../../testing/timeScale.ts";

const dir = mkdtempSync(join(tmpdir(), "herald-sqlite-worker-live-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const storeUrl = new URL("./SqliteWorkerStore.ts", import.meta.url).href;

/** Runs `body` (ES module text, `openSqliteStateStore` imported) as its own Node process. */
function runScript(name: string, body: string) {
  const script = join(dir, `${name}.ts`);
  writeFileSync(
    script,
    `import { openSqliteStateStore } from ${JSON.stringify(storeUrl)};\n${body}`,
  );
  return spawnSync(process.execPath, ["--conditions=herald-source", script], {
    encoding: "utf8",
    timeout: scaledMs(30_000),
  });
}

describe("SqliteWorkerStore and process liveness", () => {
  it(
    "a script that never closes the store exits once its calls settled, failed ones too",
    () => {
      const run = runScript(
        "never-closed",
        `const store = await openSqliteStateStore({ path: ${JSON.stringify(join(dir, "a.db"))} });
// Nothing awaited: the in-flight write must keep the process alive until it committed; the
// failing call after it must not keep it alive once it rejected.
void store.setWatermark({ channel: "qa", source: "w" }, "v1").then(() => {
  console.log("committed");
  return store
    .appendLedger([{ conversation: "c", type: "t", at: 1, data: new Proxy({ n: 1n }, {}) }])
    .catch((e) => console.log("failed:", e.name));
});
`,
      );
      expect(run.error).toBeUndefined(); // ETIMEDOUT when the worker keeps the process alive
      expect(run.stdout).toContain("committed");
      expect(run.stdout).toContain("failed: StoreUnavailableError");
      expect(run.status).toBe(0);
    },
    scaledMs(40_000),
  );

  it(
    "await close() resolves: the process is held until the worker closed the database",
    () => {
      // The last results arrive before the worker's "closed": the process must not exit between
      // them (it did: exit code 13, an unsettled top-level await, code after close() skipped).
      // The race is lost most of the time, so 10 rounds make it certain.
      const run = runScript(
        "close",
        `for (let round = 0; round < 10; round++) {
  const store = await openSqliteStateStore({
    path: ${JSON.stringify(join(dir, "b"))} + round + ".db",
    groupCommit: { maxGroupMs: 1 },
  });
  const writes = Array.from({ length: 100 }, (_, i) =>
    store.setWatermark({ channel: "qa", source: "w" + i }, "v"),
  );
  await store.close();
  await Promise.all(writes);
}
console.log("all closed");
`,
      );
      expect(run.error).toBeUndefined();
      expect(run.stderr).not.toContain("unsettled top-level await");
      expect(run.stdout).toContain("all closed");
      expect(run.status).toBe(0);
    },
    scaledMs(40_000),
  );
});
