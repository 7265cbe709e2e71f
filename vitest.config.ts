import { defineConfig } from "vitest/config";

/** One Vitest run over every workspace package; each package's own config is a project. */
export default defineConfig({
  test: {
    projects: ["packages/*", "plugins/*", "examples/*", "scripts"],
  },
});
