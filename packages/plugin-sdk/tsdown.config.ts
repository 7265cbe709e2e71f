import { defineConfig } from "tsdown";

export default defineConfig({
  entry: {
    "channel-message/index": "src/channel-message/index.ts",
    "testing/index": "src/testing/index.ts",
    "contract/index": "src/contract/index.ts",
  },
  format: "esm",
  platform: "node",
  dts: true,
  clean: true,
});
