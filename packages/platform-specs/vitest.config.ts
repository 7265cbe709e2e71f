import { defineProject } from "vitest/config";
import { sourceResolution } from "../../vitest.shared.ts";

export default defineProject({
  ...sourceResolution,
  test: {
    name: "platform-specs",
    include: ["src/**/*.test.ts"],
    testTimeout: 30_000,
    setupFiles: ["./src/vitestSetup.ts"],
  },
});
