/**
 * [H28] C51: errors link the published docs — the repository URL of package.json plus a page
 * and anchor that exist — never a repo-relative `docs/…` path an installed package lacks.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { docsLink, docsPages, REPOSITORY_URL } from "./docsLinks.ts";

const pkgDir = fileURLToPath(new URL("..", import.meta.url));
const root = join(pkgDir, "../..");

/** GitHub's heading anchor: lower case, punctuation dropped, spaces → "-". */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .replace(/\s/g, "-");
}

describe("docs links in errors", () => {
  it("point into the repository package.json names", () => {
    const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as {
      repository: { url: string };
    };
    expect(pkg.repository.url.replace(/^git\+/, "").replace(/\.git$/, "")).toBe(REPOSITORY_URL);
    expect(docsLink("configure")).toBe(
      `${REPOSITORY_URL}/blob/main/docs/getting-started.md#4-configure-a-gateway`,
    );
  });

  it.each(docsPages().map((p) => [p.page, p.path] as const))(
    "%s: %s exists, with its anchor",
    (_page, path) => {
      const [file = "", anchor] = path.split("#");
      const text = readFileSync(join(root, file), "utf8");
      if (anchor) {
        const anchors = [...text.matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1] ?? ""));
        expect(anchors).toContain(anchor);
      }
    },
  );

  it("no source of the gateway names a repo-only docs path in a message", () => {
    const sources = readdirSync(join(pkgDir, "src"), { recursive: true, encoding: "utf8" })
      .map((f) => join("src", f))
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && f !== "src/docsLinks.ts");
    expect(sources.length).toBeGreaterThan(50);
    const offenders = sources.filter((file) =>
      readFileSync(join(pkgDir, file), "utf8")
        .split("\n")
        // code, not comments: a string naming docs/… without the published URL in front
        .filter((l) => !/^\s*(\*|\/\/|\/\*\*)/.test(l))
        .some((l) => /["'`(\s]docs\/[\w./-]+\.md/.test(l) && !l.includes("blob/main/docs/")),
    );
    expect(offenders).toEqual([]);
  });
});
