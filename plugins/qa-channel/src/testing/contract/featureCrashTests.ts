/**
 * [H23] SIGKILL tests of the features beyond text, area `features`: a reply with two files and
 * a caption, killed at every unit boundary (before each unit's platform call, and after the
 * platform accepted each unit but before its receipt part was saved), ends with each file and
 * the caption shown exactly once on channels with native keys or complete reconciliation; a
 * reaction killed after the platform applied it is still on after the restart (never toggled
 * off). Real child processes, real SQLite files, failpoints (`HERALD_FAILPOINTS`).
 *
 * @module
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runNodeChild, SqliteStateStore, scaledMs } from "@herald/plugin-sdk/testing";
import { afterAll, expect, onTestFinished } from "vitest";
import type { FeatureCrashConfig } from "./featureCrashChild.ts";
import { guaranteeOf } from "./guarantee.ts";
import type { ContractSuite } from "./registry.ts";
import { CONTRACT_MAX_LENGTH } from "./setup.ts";
import type { ContractHarness, JsonValue } from "./types.ts";

const fromSource = import.meta.url.endsWith(".ts");
const childScript = fileURLToPath(
  new URL(fromSource ? "./featureCrashChild.ts" : "./featureCrashChild.mjs", import.meta.url),
);
const nodeArgs = fromSource ? ["--conditions=herald-source"] : [];

/** Every unit boundary of a 3-unit reply (file, file, caption). */
const BOUNDARIES: Array<{ failpoint: string; action: string; landed: number }> = [
  { failpoint: "send.before_unit_call", action: "kill@1", landed: 0 },
  { failpoint: "send.after_platform_accept", action: "kill@1", landed: 1 },
  { failpoint: "send.before_unit_call", action: "kill@2", landed: 1 },
  { failpoint: "send.after_platform_accept", action: "kill@2", landed: 2 },
  { failpoint: "send.before_unit_call", action: "kill@3", landed: 2 },
  { failpoint: "send.after_platform_accept", action: "kill@3", landed: 3 },
];

/** Registers the `features` crash tests. */
export function featureCrashTests(suite: ContractSuite): void {
  const { harness: h, test, describe } = suite;
  if (!suite.has("features")) return;
  describe("features beyond text after a killed process [H23]", () => {
    let dir: string | undefined;
    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    test(
      "features.files-crash-every-boundary",
      "a reply with two files and a caption, SIGKILLed at every unit boundary, shows each file and the caption exactly once",
      async (ctx) => {
        ctx.skip(!h.module, "the harness has no `module`: a child cannot rebuild its adapter");
        dir ??= mkdtempSync(join(tmpdir(), "herald-h23-crash-"));
        const probe = await h.platform({ maxLength: CONTRACT_MAX_LENGTH });
        const adapter = h.createAdapter(probe.connection as JsonValue);
        await probe.close();
        ctx.skip(!adapter.capabilities.attachments?.upload, "the adapter declares no uploads");
        const guarantee = guaranteeOf(h, adapter);
        ctx.skip(
          guarantee !== "native-key" && guarantee !== "reconcile-complete",
          `exactly once needs native keys or complete reconciliation (guarantee: ${guarantee})`,
        );
        const a = join(dir, "a.txt");
        const b = join(dir, "b.txt");
        writeFileSync(a, "alpha");
        writeFileSync(b, "bravo!");
        for (const boundary of BOUNDARIES) {
          const platform = await h.platform({ maxLength: CONTRACT_MAX_LENGTH });
          onTestFinished(() => platform.close());
          const f = platform.features;
          ctx.skip(!f?.filesOf, "the fake cannot show files (features.filesOf)");
          const target = await platform.createTarget("group");
          const base: Omit<FeatureCrashConfig, "phase"> = {
            module: h.module as NonNullable<ContractHarness["module"]>,
            connection: platform.connection,
            storePath: join(dir, `files-${boundary.failpoint}-${boundary.action}.db`),
            target,
            accountId: h.accountId ?? "contract",
            job: {
              kind: "files",
              caption: "two files",
              attachments: [
                { kind: "file", path: a, name: "a.txt", mimeType: "text/plain" },
                { kind: "file", path: b, name: "b.txt", mimeType: "text/plain" },
              ],
            },
          };
          const at = `${boundary.failpoint}=${boundary.action}`;
          const produce = await runNodeChild(
            childScript,
            [JSON.stringify({ ...base, phase: "produce" })],
            { failpoints: { [boundary.failpoint]: boundary.action as never }, nodeArgs },
          );
          expect(produce.killed, `not killed at ${at}: ${produce.stderr}`).toBe(true);
          const ours = async () => (await platform.visible(target)).filter((m) => m.author.bot);
          expect((await ours()).length, `units shown when killed at ${at}`).toBe(boundary.landed);
          const drain = await runNodeChild(
            childScript,
            [JSON.stringify({ ...base, phase: "drain" })],
            { nodeArgs },
          );
          expect(drain.code, `restart failed (${at}): ${drain.stderr}`).toBe(0);
          const shown = (await ours()).map((m) => [
            m.text,
            (f?.filesOf?.(m) ?? []).map((x) => x.name),
          ]);
          expect(shown, `exactly once after a kill at ${at}`).toEqual([
            ["", ["a.txt"]],
            ["", ["b.txt"]],
            ["two files", []],
          ]);
          const store = new SqliteStateStore({ path: base.storePath });
          const [intent] = await store.listIntents();
          await store.close();
          expect(intent?.status).toBe("sent");
          expect(intent?.receipt?.parts.map((p) => [p.index, p.kind])).toEqual([
            [0, "media"],
            [1, "media"],
            [2, "text"],
          ]);
          await platform.close();
        }
      },
      { timeout: scaledMs(120_000) },
    );

    test(
      "features.reaction-crash-not-toggled",
      "a reaction SIGKILLed after the platform applied it (receipt unsaved) is still on after the restart",
      async (ctx) => {
        ctx.skip(!h.module, "the harness has no `module`: a child cannot rebuild its adapter");
        dir ??= mkdtempSync(join(tmpdir(), "herald-h23-crash-"));
        const platform = await h.platform({ maxLength: CONTRACT_MAX_LENGTH });
        onTestFinished(() => platform.close());
        const adapter = h.createAdapter(platform.connection as JsonValue);
        ctx.skip(!adapter.capabilities.reactions?.add, "the adapter declares no reactions");
        const f = platform.features;
        ctx.skip(!f?.botReactions || !f.post, "the fake cannot show reactions or post");
        const target = await platform.createTarget("group");
        const post = f?.post as (t: typeof target, text: string) => Promise<string> | string;
        const messageId = await post(target, "react to me");
        const base: Omit<FeatureCrashConfig, "phase"> = {
          module: h.module as NonNullable<ContractHarness["module"]>,
          connection: platform.connection,
          storePath: join(dir, `reaction-${Date.now()}.db`),
          target,
          accountId: h.accountId ?? "contract",
          job: { kind: "reaction", messageId },
        };
        const produce = await runNodeChild(
          childScript,
          [JSON.stringify({ ...base, phase: "produce" })],
          { failpoints: { "send.after_platform_accept": "kill" }, nodeArgs },
        );
        expect(produce.killed, `not killed: ${produce.stderr}`).toBe(true);
        expect(await f?.botReactions?.(target, messageId)).toEqual(["👍"]);
        const drain = await runNodeChild(
          childScript,
          [JSON.stringify({ ...base, phase: "drain" })],
          { nodeArgs },
        );
        expect(drain.code, `restart failed: ${drain.stderr}`).toBe(0);
        expect(await f?.botReactions?.(target, messageId)).toEqual(["👍"]);
        const store = new SqliteStateStore({ path: base.storePath });
        const [intent] = await store.listIntents();
        await store.close();
        expect(intent?.status).toBe("sent");
      },
      { timeout: scaledMs(40_000) },
    );
  });
}
