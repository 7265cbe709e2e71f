/**
 * Contract tests: live sessions across a killed process. A child streams previews to the fake
 * platform (hosted here, in the parent) and is SIGKILLed by a failpoint at a live step; a
 * second child restarts on the same SQLite file — live recovery runs — and handles the message
 * again under the same key, as a bot does. The chat must end with the final exactly once and
 * no preview (DESIGN §6 "Recovery").
 *
 * @module
 */
import { join } from "node:path";
import { scaledMs } from "@herald/plugin-sdk/testing";
import { expect, onTestFinished } from "vitest";
import { crashDir, expectKilledAt, runCrashChild } from "./crashRun.ts";
import type { LiveCrashChildConfig } from "./liveCrashChild.ts";
import type { ContractSuite } from "./registry.ts";
import { CONTRACT_MAX_LENGTH, normalizeSpace } from "./setup.ts";
import type { ContractHarnessModule, JsonValue } from "./types.ts";

type LiveCrashCase = {
  id: string;
  failpoint: string;
  finalize: LiveCrashChildConfig["finalize"];
  title: string;
};

const CASES: LiveCrashCase[] = [
  {
    id: "live.crash-after-preview",
    failpoint: "live.after_preview",
    finalize: "in_place",
    title:
      "killed after the platform accepted the first preview, before it was recorded: after the restart the final shows once",
  },
  {
    id: "live.crash-after-final-accept",
    failpoint: "live.after_final_accept",
    finalize: "fresh",
    title:
      "killed after a fresh final was accepted, before the preview was deleted: recovery deletes it; the final shows once",
  },
  {
    id: "live.crash-before-preview-delete",
    failpoint: "live.before_preview_delete",
    finalize: "fresh",
    title:
      "killed just before deleting the preview after a fresh final: recovery deletes it; the final shows once",
  },
];

const PREVIEWS = ["Looking into it", "Looking into it, almost", "Looking into it, almost there"];
const FINAL = "Here is the whole answer, once.";

/** Registers the live crash tests (`live` area). */
export function liveCrashTests(suite: ContractSuite): void {
  const { harness: h, test, describe } = suite;
  if (!suite.has("live")) return;
  describe("live sessions across a killed process", () => {
    const dir = crashDir("herald-contract-live-");
    for (const c of CASES) {
      test(
        c.id,
        c.title,
        // kills: preview left after a fresh final
        async (ctx) => {
          ctx.skip(!h.module, "the harness has no `module`: a child cannot rebuild its adapter");
          const platform = await h.platform({ maxLength: CONTRACT_MAX_LENGTH });
          onTestFinished(() => platform.close());
          const adapter = h.createAdapter(platform.connection as JsonValue);
          ctx.skip(
            !adapter.capabilities.live?.edit || !adapter.send.edit,
            "the channel cannot edit messages (capabilities.live.edit + send.edit): no previews",
          );
          ctx.skip(
            c.finalize === "fresh" && !adapter.send.delete,
            "the channel cannot delete messages (send.delete): a fresh final leaves the preview",
          );
          const target = await platform.createTarget("direct");
          const base: Omit<LiveCrashChildConfig, "phase"> = {
            module: h.module as ContractHarnessModule,
            connection: platform.connection,
            storePath: join(dir(), `${c.failpoint}-${Date.now()}.db`),
            accountId: h.accountId ?? "contract",
            target,
            key: `live-crash-${c.id}`,
            previews: PREVIEWS,
            final: FINAL,
            finalize: c.finalize,
          };
          const first = await runCrashChild(
            "liveCrashChild",
            { ...base, phase: "stream" },
            c.failpoint,
          );
          expectKilledAt(first, c.failpoint);
          expect((await platform.visible(target)).length, "a preview was visible").toBeGreaterThan(
            0,
          );

          const rerun = await runCrashChild("liveCrashChild", { ...base, phase: "rerun" });
          expect(rerun.code, `restart failed: ${rerun.stderr}`).toBe(0);
          const visible = (await platform.visible(target)).map((m) => normalizeSpace(m.text));
          expect(
            visible.filter((t) => t === FINAL),
            "the final, exactly once",
          ).toHaveLength(1);
          // A preview whose send was in flight at the kill can only be found again by a
          // reconciler (`send.reconcileUnknownSend`); without one it may stay (core logs it).
          const strays = visible.filter((t) => t !== FINAL);
          const inDoubt =
            c.failpoint === "live.after_preview" && !adapter.send.reconcileUnknownSend;
          expect(strays.length, `previews left: ${JSON.stringify(strays)}`).toBeLessThanOrEqual(
            inDoubt ? 1 : 0,
          );
        },
        { timeout: scaledMs(40_000) },
      );
    }
  });
}
