import { defineConfig } from "tsdown";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    "testing/index": "src/testing/index.ts",
    "contract/index": "src/contract/index.ts",
    // Worker-thread entry of openSqliteStateStore (started by URL next to the bundle).
    sqliteWorker: "src/state/sqlite/worker/sqliteWorker.ts",
    // Child-process entry of the store crash tests (spawned by path, not imported).
    "testing/crashChild": "src/testing/crashChild.ts",
  },
  format: "esm",
  platform: "node",
  dts: true,
  clean: true,
});
