/**
 * Vitest settings shared by every workspace package: resolve workspace packages to their
 * sources (the `herald-source` export condition), so tests never run against a stale `dist/`.
 */

// Vite's default server conditions, with ours first.
const conditions = ["herald-source", "module", "node", "development|production"];

/** Spread into `defineProject({ ...sourceResolution, test: { … } })`. */
export const sourceResolution = {
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["herald-source"] } },
};

/**
 * Spread into a plugin project's `test`: every request its fake platform servers receive and
 * every answer they return is checked against the platform's published API description
 * (`packages/platform-specs`), and a divergence fails the test that caused it.
 */
export const fakeSpecChecks = {
  setupFiles: [new URL("./packages/platform-specs/src/vitestSetup.ts", import.meta.url).pathname],
};
