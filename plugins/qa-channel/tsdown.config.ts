import { defineConfig } from "tsdown";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    "contract/index": "src/testing/contract/index.ts",
    // Started as a child process by the contract suite's crash tests (next to contract/index).
    "contract/crashChild": "src/testing/contract/crashChild.ts",
    "contract/receiveCrashChild": "src/testing/contract/receiveCrashChild.ts",
    "contract/liveCrashChild": "src/testing/contract/liveCrashChild.ts",
    "contract/featureCrashChild": "src/testing/contract/featureCrashChild.ts",
    "testing/index": "src/testing/index.ts",
  },
  format: "esm",
  platform: "node",
  dts: true,
  clean: true,
});
