import { defineProject } from "vitest/config";
import { fakeSpecChecks, sourceResolution } from "../../vitest.shared.ts";

export default defineProject({
  ...sourceResolution,
  test: {
    ...fakeSpecChecks,
    name: "googlechat",
    include: ["src/**/*.test.ts"],
  },
});
