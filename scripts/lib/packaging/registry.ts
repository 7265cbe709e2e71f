/**
 * A tiny npm registry on 127.0.0.1 that serves packed tarballs — what `npm install` and
 * `pnpm install` see once herald is published: a blank project names `@herald/gateway` and
 * `@herald/plugin-telegram` and every `@herald/*` dependency resolves through the registry,
 * with no `overrides` and no tarball paths. Only the `@herald` scope is routed here (`.npmrc`
 * `@herald:registry=…`); everything else comes from the usual registry or the local cache.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { basename } from "node:path";

/** One packed package. */
export type Tarball = {
  name: string;
  version: string;
  file: string;
  /** The package.json inside the tarball (workspace protocols replaced by pack). */
  manifest: Record<string, unknown>;
};

/** Reads the manifest of a packed tarball. */
export function readTarball(file: string): Tarball {
  const manifest = JSON.parse(
    execFileSync("tar", ["-xzOf", file, "package/package.json"], { encoding: "utf8" }),
  ) as Record<string, unknown> & { name: string; version: string };
  return { name: manifest.name, version: manifest.version, file, manifest };
}

/** A running registry. */
export type LocalRegistry = { url: string; close(): Promise<void> };

/** Serves `tarballs` as a registry on 127.0.0.1 (a free port). */
export async function startRegistry(tarballs: readonly Tarball[]): Promise<LocalRegistry> {
  const byName = new Map(tarballs.map((t) => [t.name, t]));
  const byFile = new Map(tarballs.map((t) => [basename(t.file), t]));
  let url = "";
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? "/").split("?")[0] ?? "/");
    const file = path.startsWith("/-/") ? byFile.get(path.slice(3)) : undefined;
    if (file) {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(readFileSync(file.file));
      return;
    }
    const t = byName.get(path.slice(1));
    if (!t) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: `not found: ${path.slice(1)}` }));
      return;
    }
    const data = readFileSync(t.file);
    const packument = {
      name: t.name,
      "dist-tags": { latest: t.version },
      versions: {
        [t.version]: {
          ...t.manifest,
          dist: {
            tarball: `${url}/-/${basename(t.file)}`,
            integrity: `sha512-${createHash("sha512").update(data).digest("base64")}`,
            shasum: createHash("sha1").update(data).digest("hex"),
          },
        },
      },
    };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(packument));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("registry has no address");
  url = `http://127.0.0.1:${address.port}`;
  return {
    url,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
