import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["herald-source"] },
  test: {
    name: "store-postgres",
    include: ["src/**/*.test.ts"],
    testTimeout: 30_000,
  },
});
