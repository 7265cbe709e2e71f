import { defineProject } from "vitest/config";
import { sourceResolution } from "../vitest.shared.ts";

export default defineProject({
  ...sourceResolution,
  test: { name: "scripts", include: ["lib/**/*.test.ts"], exclude: ["lib/packaging/fixture/**"] },
});
