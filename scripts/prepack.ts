/**
 * `prepack` of every publishable package: builds it (`tsdown`) when `dist/` is missing or older
 * than `src/`, so `pnpm pack` / `npm pack` never makes a tarball without its code (npx would
 * then fall back to the registry). After `pnpm build` it does nothing.
 *
 * Usage (in a package's folder, as its `prepack` script): `node ../../scripts/prepack.ts`
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Newest modification time under `dir`, in ms (0 when it does not exist). */
function newest(dir: string): number {
  if (!existsSync(dir)) return 0;
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile())
      latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

const built = newest("dist");
if (built === 0 || newest("src") > built) {
  console.error(`prepack: ${built === 0 ? "no dist/" : "dist/ is older than src/"}: building`);
  execFileSync("pnpm", ["exec", "tsdown"], { stdio: "inherit" });
  if (newest("dist") === 0) {
    console.error("prepack: the build made no dist/; refusing to pack a package without its code");
    process.exit(1);
  }
}
