import { defineProject } from "vitest/config";
import { sharedTest, sourceResolution } from "../../vitest.shared.ts";

export default defineProject({
  ...sourceResolution,
  test: {
    ...sharedTest,
    name: "qa-channel",
    include: ["src/**/*.test.ts"],
  },
});
