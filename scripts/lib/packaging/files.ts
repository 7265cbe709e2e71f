/**
 * What every published tarball must carry: the repository's LICENSE (byte for byte), a README
 * whose links work on the registry page (absolute URLs, no relative paths), the root's
 * `license` and `engines.node`, and a `repository` pointing at its folder.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Tarball } from "./registry.ts";

function fileIn(tarball: string, path: string): string | undefined {
  try {
    return execFileSync("tar", ["-xzOf", tarball, `package/${path}`], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch {
    return undefined;
  }
}

/** Markdown links and images whose target is not absolute (`http(s):`, `mailto:` or `#…`). */
export function relativeLinks(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...withoutCode.matchAll(/!?\[[^\]]*\]\(([^)\s]+)[^)]*\)/g)]
    .map((m) => m[1] ?? "")
    .filter((target) => !/^(https?:|mailto:|#)/.test(target));
}

/** Problems with the tarballs' files, one line each (empty when all is well). */
export function checkTarballFiles(root: string, tarballs: readonly Tarball[]): string[] {
  if (!existsSync(join(root, "LICENSE"))) return ["the repository has no LICENSE file"];
  const license = readFileSync(join(root, "LICENSE"), "utf8");
  const rootPkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    license?: string;
    engines?: { node?: string };
  };
  const problems: string[] = [];
  for (const t of tarballs) {
    const m = t.manifest as {
      license?: string;
      engines?: { node?: string };
      repository?: { directory?: string };
    };
    if (fileIn(t.file, "LICENSE") !== license)
      problems.push(`${t.name}: LICENSE missing or different from the repository's`);
    if (m.license !== rootPkg.license)
      problems.push(`${t.name}: license "${m.license}", the repository says "${rootPkg.license}"`);
    if (m.engines?.node !== rootPkg.engines?.node)
      problems.push(
        `${t.name}: engines.node "${m.engines?.node}", the repository says "${rootPkg.engines?.node}"`,
      );
    if (!m.repository?.directory) problems.push(`${t.name}: repository.directory missing`);
    const readme = fileIn(t.file, "README.md");
    if (!readme) problems.push(`${t.name}: README.md missing`);
    else {
      for (const link of relativeLinks(readme))
        problems.push(
          `${t.name}: README link "${link}" is relative (broken on the registry page): use an absolute URL`,
        );
    }
  }
  return problems;
}
