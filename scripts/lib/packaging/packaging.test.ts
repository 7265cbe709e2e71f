/**
 * The packaging check bites: a package that imports a devDependency at runtime fails it even
 * when npm's flat node_modules makes the import physically resolvable (the same package with
 * the dependency declared passes); tarball contents and type errors are judged as documented.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { scaledMs } from "@herald/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { relativeLinks } from "./files.ts";
import { createProject, install, run } from "./project.ts";
import { type LocalRegistry, readTarball, startRegistry, type Tarball } from "./registry.ts";
import { typeErrors } from "./scenario.ts";

const fixtureDir = join(dirname(fileURLToPath(import.meta.url)), "fixture");
const ZOD = "4.6.7"; // pinned by the workspace, so it is in the local cache

function fixturePackage(
  dest: string,
  name: string,
  manifest: Record<string, unknown>,
  code: string,
): Tarball {
  const dir = join(dest, name.replace("/", "-"));
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({
      name,
      version: "0.0.1",
      type: "module",
      exports: { ".": "./index.mjs" },
      ...manifest,
    }),
  );
  writeFileSync(join(dir, "index.mjs"), code);
  const file = execFileSync("npm", ["pack", "--pack-destination", dest, "--silent"], {
    cwd: dir,
    encoding: "utf8",
  }).trim();
  return readTarball(join(dest, file));
}

describe("packaging check", () => {
  let registry: LocalRegistry;
  const cleanup: string[] = [];
  beforeAll(async () => {
    const dest = mkdtempSync(join(tmpdir(), "herald-pack-fixture-"));
    cleanup.push(dest);
    const uses = 'import { z } from "zod";\nexport const name = z.string().parse("ok");\n';
    registry = await startRegistry([
      // Brings zod into node_modules (npm hoists it to the top).
      fixturePackage(dest, "@herald/fixture-dep", { dependencies: { zod: ZOD } }, "export {};\n"),
      fixturePackage(
        dest,
        "@herald/fixture-broken",
        { dependencies: { "@herald/fixture-dep": "0.0.1" }, devDependencies: { zod: ZOD } },
        uses,
      ),
      fixturePackage(
        dest,
        "@herald/fixture-fixed",
        { dependencies: { "@herald/fixture-dep": "0.0.1", zod: ZOD } },
        uses,
      ),
    ]);
  });
  afterAll(async () => {
    await registry?.close();
    for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
  });

  const smoke = async (pkg: string) => {
    const project = createProject({
      manager: "npm",
      registryUrl: registry.url,
      dependencies: { [pkg]: "0.0.1" },
      fixtureDir,
    });
    cleanup.push(project.dir);
    await install(project);
    expect(existsSync(join(project.dir, "node_modules/zod/package.json"))).toBe(true);
    return run("node", ["smoke.mjs"], { cwd: project.dir });
  };

  it("fails a runtime import of a devDependency, though npm made it resolvable", {
    timeout: scaledMs(120_000),
  }, async () => {
    const result = await smoke("@herald/fixture-broken");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /FAIL @herald\/fixture-broken: @herald\/fixture-broken imports "zod" at runtime .* only a devDependency/,
    );
  });

  it("passes the same package with the dependency declared", {
    timeout: scaledMs(120_000),
  }, async () => {
    const result = await smoke("@herald/fixture-fixed");
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("ok   @herald/fixture-fixed");
    expect(result.code).toBe(0);
  });

  it("flags README links that break on the registry page", () => {
    expect(
      relativeLinks(
        "[a](../../docs/x.md) [b](https://example.org/y) [c](#z) ![d](img.png) `[e](f.md)`",
      ),
    ).toEqual(["../../docs/x.md", "img.png"]);
  });

  it("fails on herald's own type errors, not on a dependency's", () => {
    const { ours, thirdParty } = typeErrors(
      [
        "node_modules/hono/dist/types/helper/websocket/index.d.ts(10,21): error TS2315: x",
        "node_modules/.pnpm/@herald+core@0.1.0/node_modules/@herald/core/dist/index.d.mts(1,1): error TS1: y",
        "bot.ts(3,7): error TS2322: z",
      ].join("\n"),
    );
    expect(ours).toHaveLength(2);
    expect(thirdParty).toHaveLength(1);
  });
});
