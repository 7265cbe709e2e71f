import { defineProject } from "vitest/config";
import { sourceResolution } from "../../vitest.shared.ts";

export default defineProject({
  ...sourceResolution,
  test: {
    name: "googlechat",
    include: ["src/**/*.test.ts"],
    testTimeout: 30_000,
  },
});
