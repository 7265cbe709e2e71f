import { defineProject } from "vitest/config";
import { sharedTest, sourceResolution } from "../../vitest.shared.ts";

export default defineProject({
  ...sourceResolution,
  test: {
    ...sharedTest,
    name: "create-plugin",
    include: ["src/**/*.test.ts"],
    exclude: [".scaffold-*/**"],
  },
});
