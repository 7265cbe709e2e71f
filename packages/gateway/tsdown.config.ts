import { defineConfig } from "tsdown";

export default defineConfig({
  entry: { index: "src/index.ts", "cli/main": "src/cli/main.ts" },
  format: "esm",
  platform: "node",
  dts: true,
  clean: true,
});
