/**
 * Links to herald's published docs for errors and hints: an operator reading an error has the
 * installed package, not the repository, so a path like `docs/getting-started.md` leads
 * nowhere. Links point into the repository named by package.json `repository` ([H28] C51).
 *
 * @module
 */

/** The repository of herald (package.json `repository.url`, as a browsable URL). */
export const REPOSITORY_URL = "https://github.com/herald-dev/herald";

/** The docs pages errors link to, each with its anchors. */
const PAGES = {
  configure: "docs/getting-started.md#4-configure-a-gateway",
  install: "docs/getting-started.md#1-install",
  operate: "docs/getting-started.md#6-operate",
  scaling: "docs/concepts/scaling.md",
} as const;

/** A docs page errors link to. */
export type DocsPage = keyof typeof PAGES;

/** The published URL of a docs page, e.g. `docsLink("configure")`. */
export function docsLink(page: DocsPage): string {
  return `${REPOSITORY_URL}/blob/main/${PAGES[page]}`;
}

/** Every linked page with its path in the repository (tests check each file and anchor). */
export function docsPages(): ReadonlyArray<{ page: DocsPage; path: string }> {
  return Object.entries(PAGES).map(([page, path]) => ({ page: page as DocsPage, path }));
}
