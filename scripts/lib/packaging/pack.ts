/**
 * Packs publishable workspace packages with `pnpm pack` (it replaces `workspace:` ranges with
 * the real versions, as `pnpm publish` does), once each, in parallel.
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { readTarball, type Tarball } from "./registry.ts";

const run = promisify(execFile);

/** Folders of the workspace packages that get published (not `private`). */
export function publishableDirs(
  root: string,
  groups = ["packages", "plugins", "examples"],
): string[] {
  return groups.flatMap((group) => {
    let names: string[];
    try {
      names = readdirSync(join(root, group));
    } catch {
      return [];
    }
    return names
      .map((name) => join(root, group, name))
      .filter((dir) => {
        try {
          const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
            private?: boolean;
          };
          return pkg.private !== true;
        } catch {
          return false;
        }
      });
  });
}

/** Packs each of `dirs` into `dest`. */
export async function packAll(dirs: readonly string[], dest: string): Promise<Tarball[]> {
  return Promise.all(
    dirs.map(async (dir) => {
      const { stdout } = await run("pnpm", ["pack", "--pack-destination", dest, "--json"], {
        cwd: dir,
        maxBuffer: 16 * 1024 * 1024,
      });
      // The `prepack` lifecycle prints its banner first: the JSON starts at the first `{` or `[` line.
      const parsed = JSON.parse(stdout.slice(Math.max(0, stdout.search(/^[[{]/m)))) as
        | { filename: string }
        | Array<{ filename: string }>;
      const filename = Array.isArray(parsed) ? parsed[0]?.filename : parsed.filename;
      if (!filename) throw new Error(`pnpm pack in ${dir} printed no file name`);
      return readTarball(filename.startsWith("/") ? filename : join(dest, filename));
    }),
  );
}
