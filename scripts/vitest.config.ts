import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "scripts", include: ["lib/**/*.test.ts"], exclude: ["lib/packaging/fixture/**"] },
});
