import { defineProject } from "vitest/config";
import { fullSuite } from "../../packages/core/src/testing/suiteDepth.ts";
import { sharedTest, sourceResolution } from "../../vitest.shared.ts";

export default defineProject({
  ...sourceResolution,
  test: {
    ...sharedTest,
    name: "example-plugin-httpchat",
    include: ["src/**/*.test.ts"],
    // The example's mutant catalog (~4 min of CPU) runs in `pnpm check:full`; the gate proves it
    // on the same code through the packaging step, where the plugin `npm create @herald/plugin`
    // makes from this example runs its own test (contract suite + this catalog).
    exclude: fullSuite() ? [] : ["src/mutants.test.ts"],
  },
});
