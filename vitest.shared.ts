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
