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
import {
  type FailpointAction,
  isHeldForOperator,
  runNodeChild,
  SqliteStateStore,
  scaledMs,
} from "@herald/plugin-sdk/testing";
import { afterAll, expect, onTestFinished } from "vitest";
import type { CrashChildConfig } from "./crashChild.ts";
import { expectGuaranteed, guaranteeOf } from "./guarantee.ts";
import type { ContractSuite } from "./registry.ts";
import { CONTRACT_MAX_LENGTH, maxLengthOf, normalizeSpace, wordsOfLength } from "./setup.ts";
import type { ContractHarness, JsonValue } from "./types.ts";

/** Running from TypeScript sources (the workspace) rather than a built package. */
const fromSource = import.meta.url.endsWith(".ts");
const childScript = fileURLToPath(
  new URL(fromSource ? "./crashChild.ts" : "./crashChild.mjs", import.meta.url),
);
const nodeArgs = fromSource ? ["--conditions=herald-source"] : [];

type CrashCase = {
  id: string;
  title: string;
  /** The failpoint armed in the first child, and its action (`kill@k`: on the k-th hit). */
  failpoint: string;
  action: FailpointAction;
  /** Where the message goes. */
  place: "group" | "thread";
  /** The text's length in limits (`> 1`: a multi-part message). */
  lengthInLimits: number;
  /** Parts visible when the first child died. */
  landedParts: number;
};

const CASES: CrashCase[] = [
  {
    id: "crash.after-sending",
    title:
      "killed after writing `sending`, before the platform call: the restart keeps the declared guarantee",
    failpoint: "send.after_sending",
    action: "kill",
    place: "group",
    lengthInLimits: 0,
    landedParts: 0,
  },
  {
    id: "crash.after-platform-accept",
    title:
      "killed after the platform accepted, before the receipt was saved: the restart keeps the declared guarantee",
    failpoint: "send.after_platform_accept",
    action: "kill",
    place: "group",
    lengthInLimits: 0,
    landedParts: 1,
  },
  {
    // kills: receipts of later parts; idempotency key shared across parts / changed between retries
    id: "crash.multi-part-after-part-accept",
    title:
      "killed after part 2 of 3 was accepted: after the restart every part is visible once (per the guarantee), in order",
    failpoint: "send.after_platform_accept",
    action: "kill@2",
    place: "group",
    lengthInLimits: 2.5,
    landedParts: 2,
  },
  {
    // kills: reply relation or thread dropped on chunk 2+
    id: "crash.thread-multi-part",
    title:
      "killed after part 1 of a multi-part thread reply was accepted: the restart sends the rest into the same thread",
    failpoint: "send.after_platform_accept",
    action: "kill@1",
    place: "thread",
    lengthInLimits: 2.5,
    landedParts: 1,
  },
];

/** Registers the `crash` area (child processes killed by failpoints). */
export function crashTests(suite: ContractSuite): void {
  const { harness: h, test, describe } = suite;
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
            const adapter = h.createAdapter(platform.connection as JsonValue);
            const guarantee = guaranteeOf(h, adapter);
            ctx.skip(
              c.place === "thread" && !platform.createThread,
              "the fake platform has no threads (createThread)",
            );
            const group = await platform.createTarget("group");
            const target =
              c.place === "thread"
                ? await (platform.createThread as NonNullable<typeof platform.createThread>)(group)
                : group;
            const text =
              c.lengthInLimits > 0
                ? wordsOfLength(maxLengthOf(adapter) * c.lengthInLimits, "k")
                : "survives a crash";
            const ours = async () => (await platform.visible(target)).filter((m) => m.author.bot);
            const base: Omit<CrashChildConfig, "phase"> = {
              module: h.module as NonNullable<ContractHarness["module"]>,
              connection: platform.connection,
              storePath: join(dir, `${c.id}-${Date.now()}.db`),
              target,
              texts: [text],
              keyPrefix: "crash",
              accountId: h.accountId ?? "contract",
            };
            const produce = await runNodeChild(
              childScript,
              [JSON.stringify({ ...base, phase: "produce" })],
              { failpoints: { [c.failpoint]: c.action }, nodeArgs },
            );
            expect(
              produce.killed,
              `the child was not killed at ${c.failpoint}=${c.action}: ${produce.stderr}`,
            ).toBe(true);
            const before = (await ours()).map((m) => normalizeSpace(m.text));
            expect(before, "parts visible when the child died").toHaveLength(c.landedParts);

            const drain = await runNodeChild(
              childScript,
              [JSON.stringify({ ...base, phase: "drain" })],
              { nodeArgs },
            );
            expect(drain.code, `restart failed: ${drain.stderr}`).toBe(0);
            const store = new SqliteStateStore({ path: base.storePath });
            const [intent] = await store.listIntents();
            await store.close();
            expectGuaranteed(guarantee, { intent, expected: text, before, after: await ours() });
            if (c.place === "thread") {
              // Nothing leaked to the top level of the conversation.
              expect((await platform.visible(group)).filter((m) => m.author.bot)).toEqual([]);
            }
          },
          { timeout: scaledMs(40_000) },
        );
      }

      test(
        "crash.key-window-expired",
        "killed after the platform accepted; restarted after the platform's dedupe window: reconciled or held, never duplicated",
        async (ctx) => {
          ctx.skip(
            !h.module,
            "the harness has no `module`: a child process cannot rebuild its adapter",
          );
          dir ??= mkdtempSync(join(tmpdir(), "herald-contract-"));
          const platform = await h.platform({ maxLength: CONTRACT_MAX_LENGTH });
          onTestFinished(() => platform.close());
          const delivery = h.createAdapter(platform.connection as JsonValue).capabilities.delivery;
          const windowMs = delivery?.idempotencyWindowMs;
          ctx.skip(
            !delivery?.idempotencyKey || windowMs === undefined,
            "the adapter declares no idempotency window (capabilities.delivery.idempotencyWindowMs)",
          );
          ctx.skip(
            !platform.expireKeys,
            "the fake cannot end its dedupe window (platform.expireKeys)",
          );
          const target = await platform.createTarget("group");
          const base: Omit<CrashChildConfig, "phase"> = {
            module: h.module as NonNullable<ContractHarness["module"]>,
            connection: platform.connection,
            storePath: join(dir, `window-${Date.now()}.db`),
            target,
            texts: ["outlives the window"],
            keyPrefix: "window",
            accountId: h.accountId ?? "contract",
          };
          const produce = await runNodeChild(
            childScript,
            [JSON.stringify({ ...base, phase: "produce" })],
            { failpoints: { "send.after_platform_accept": "kill" }, nodeArgs },
          );
          expect(produce.killed, `the child was not killed: ${produce.stderr}`).toBe(true);
          expect((await platform.visible(target)).length).toBe(1);
          platform.expireKeys?.();
          const drain = await runNodeChild(
            childScript,
            [
              JSON.stringify({
                ...base,
                phase: "drain",
                clockOffsetMs: (windowMs as number) + 60_000,
              }),
            ],
            { nodeArgs },
          );
          expect(drain.code, `restart failed: ${drain.stderr}`).toBe(0);
          const store = new SqliteStateStore({ path: base.storePath });
          const [intent] = await store.listIntents();
          await store.close();
          const after = await platform.visible(target);
          expect(
            after.map((m) => normalizeSpace(m.text)),
            "never duplicated",
          ).toEqual(["outlives the window"]);
          if (intent && isHeldForOperator(intent)) return;
          expect(intent?.status, "reconciled (sent) or held").toBe("sent");
          expect(intent?.receipt?.platformMessageIds).toEqual(after.map((m) => m.id));
        },
        { timeout: scaledMs(40_000) },
      );
    });
}
