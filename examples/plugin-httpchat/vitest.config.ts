import { defineProject } from "vitest/config";
import { sharedTest, sourceResolution } from "../../vitest.shared.ts";

export default defineProject({
  ...sourceResolution,
  test: {
    ...sharedTest,
    name: "example-plugin-httpchat",
    include: ["src/**/*.test.ts"],
  },
});
