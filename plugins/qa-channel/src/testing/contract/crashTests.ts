/**
 * Contract tests: recovery after a killed process. A real child process runs the adapter and a
 * runtime on a SQLite file, an armed failpoint SIGKILLs it at an exact lifecycle point, a second
 * child restarts on the same file, and the platform (hosted here, in the parent) shows what
 * survived (DESIGN §9).
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isHeldForOperator, runNodeChild, SqliteStateStore } from "@herald/plugin-sdk/testing";
import { afterAll, describe, expect, onTestFinished } from "vitest";
import type { CrashChildConfig } from "./crashChild.ts";
import type { ContractSuite } from "./registry.ts";
import { CONTRACT_MAX_LENGTH, normalizeSpace, unknownSendGuarantee } from "./setup.ts";
import type { ContractHarness, JsonValue } from "./types.ts";

/** Running from TypeScript sources (the workspace) rather than a built package. */
const fromSource = import.meta.url.endsWith(".ts");
const childScript = fileURLToPath(
  new URL(fromSource ? "./crashChild.ts" : "./crashChild.mjs", import.meta.url),
);
const nodeArgs = fromSource ? ["--conditions=herald-source"] : [];

type CrashCase = { id: string; failpoint: string; title: string; landed: boolean };

const CASES: CrashCase[] = [
  {
    id: "crash.after-sending",
    failpoint: "send.after_sending",
    title:
      "killed after writing `sending`, before the platform call: the restart delivers it once (or holds it)",
    landed: false,
  },
  {
    id: "crash.after-platform-accept",
    failpoint: "send.after_platform_accept",
    title:
      "killed after the platform accepted, before the receipt was saved: the restart does not duplicate it",
    landed: true,
  },
];

/** Registers the `crash` area (child processes killed by failpoints). */
export function crashTests(suite: ContractSuite): void {
  const { harness: h, test } = suite;
  if (suite.has("crash"))
    describe("recovery after a killed process", () => {
      let dir: string | undefined;
      afterAll(() => {
        if (dir) rmSync(dir, { recursive: true, force: true });
      });

      for (const c of CASES) {
        test(
          c.id,
          c.title,
          async (ctx) => {
            ctx.skip(
              !h.module,
              "the harness has no `module`: a child process cannot rebuild its adapter",
            );
            dir ??= mkdtempSync(join(tmpdir(), "herald-contract-"));
            const platform = await h.platform({ maxLength: CONTRACT_MAX_LENGTH });
            onTestFinished(() => platform.close());
            const guarantee = unknownSendGuarantee(
              h.createAdapter(platform.connection as JsonValue),
            );
            const target = await platform.createTarget("group");
            const base: Omit<CrashChildConfig, "phase"> = {
              module: h.module as NonNullable<ContractHarness["module"]>,
              connection: platform.connection,
              storePath: join(dir, `${c.failpoint}-${Date.now()}.db`),
              target,
              texts: ["survives a crash"],
              keyPrefix: "crash",
              accountId: h.accountId ?? "contract",
            };
            const produce = await runNodeChild(
              childScript,
              [JSON.stringify({ ...base, phase: "produce" })],
              {
                failpoints: { [c.failpoint]: "kill" },
                nodeArgs,
              },
            );
            expect(
              produce.killed,
              `the child was not killed at ${c.failpoint}: ${produce.stderr}`,
            ).toBe(true);
            const landedBeforeRestart = (await platform.visible(target)).length;
            expect(landedBeforeRestart).toBe(c.landed ? 1 : 0);

            const drain = await runNodeChild(
              childScript,
              [JSON.stringify({ ...base, phase: "drain" })],
              { nodeArgs },
            );
            expect(drain.code, `restart failed: ${drain.stderr}`).toBe(0);
            const store = new SqliteStateStore({ path: base.storePath });
            const [intent] = await store.listIntents();
            await store.close();
            const visible = (await platform.visible(target)).map((m) => normalizeSpace(m.text));

            if (guarantee === "hold") {
              expect(intent && isHeldForOperator(intent)).toBe(true);
              expect(visible).toEqual(c.landed ? ["survives a crash"] : []);
            } else if (guarantee === "at_least_once" && c.landed) {
              expect(intent?.status).toBe("sent");
              expect(visible.length).toBeGreaterThanOrEqual(1);
              expect(visible.length).toBeLessThanOrEqual(2);
            } else {
              expect(intent?.status).toBe("sent");
              expect(visible).toEqual(["survives a crash"]);
            }
          },
          { timeout: 40_000 },
        );
      }
    });
}
