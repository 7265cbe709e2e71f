/**
 * Contract tests: inbound across a killed process. Messages are posted on the fake platform
 * (hosted here, in the parent); a child process runs the channel's real receiver and a runtime
 * on a SQLite file and is SIGKILLed by a failpoint at an exact receive step; a second child
 * restarts on the same file. Every message must be handled, and none twice: the receiver's
 * watermark / cursor may pass a message only once its work is done or durably recorded. (The
 * watermark is the cursor of every harness today — QA's event sequence, Telegram's update
 * offset; an opaque-cursor receiver would add a `receive.after_cursor` case here.)
 *
 * @module
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scaledMs } from "@herald/plugin-sdk/testing";
import { expect, onTestFinished } from "vitest";
import { crashDir, expectKilledAt, runCrashChild } from "./crashRun.ts";
import type { ReceiveCrashChildConfig } from "./receiveCrashChild.ts";
import type { ContractSuite } from "./registry.ts";
import { CONTRACT_MAX_LENGTH } from "./setup.ts";
import type { ContractHarnessModule } from "./types.ts";

type InboundCrashCase = {
  id: string;
  failpoint: string;
  title: string;
  /** Why a receiver may never reach the failpoint (then the test is skipped), if it may. */
  unreachable?: string;
};

const CASES: InboundCrashCase[] = [
  {
    id: "receive.crash-after-record",
    failpoint: "receive.after_record",
    title:
      "killed after the first message was recorded, before it was handled: after the restart every message is handled once",
  },
  {
    id: "receive.crash-after-watermark",
    failpoint: "receive.after_watermark",
    title:
      "killed right after the watermark moved past the first message: nothing lost, nothing handled twice",
    unreachable: "the receiver keeps no polling watermark (receive.after_watermark never reached)",
  },
];

const TEXTS = ["first of three", "second of three", "third of three"];

/** Registers the inbound crash tests (`receive` area). */
export function inboundCrashTests(suite: ContractSuite): void {
  const { harness: h, test, describe } = suite;
  if (!suite.has("receive")) return;
  describe("inbound across a killed process", () => {
    const dir = crashDir("herald-contract-receive-");
    for (const c of CASES) {
      test(
        c.id,
        c.title,
        // kills: watermark/cursor advanced before the ack
        async (ctx) => {
          ctx.skip(!h.module, "the harness has no `module`: a child cannot rebuild its receiver");
          ctx.skip(!h.createReceiver, "the harness has no createReceiver");
          const platform = await h.platform({ maxLength: CONTRACT_MAX_LENGTH });
          onTestFinished(() => platform.close());
          const inbound = platform.inbound;
          ctx.skip(!inbound, "send-only channel: the fake platform has no inbound");
          ctx.skip(
            inbound?.connectWebhook !== undefined,
            "webhook receiver: deliveries go to a handler in this process, not to a killed child",
          );
          const target = await platform.createTarget("group");
          const ids: string[] = [];
          for (const text of TEXTS) {
            ids.push((await inbound?.post(target, { text }))?.platformMessageId ?? "");
          }
          const stem = join(dir(), `${c.failpoint}-${Date.now()}`);
          const base: Omit<ReceiveCrashChildConfig, "phase"> = {
            module: h.module as ContractHarnessModule,
            connection: platform.connection,
            storePath: `${stem}.db`,
            logPath: `${stem}.log`,
            accountId: h.accountId ?? "contract",
            expect: ids,
          };
          writeFileSync(base.logPath, "");
          const handled = () => readFileSync(base.logPath, "utf8").split("\n").filter(Boolean);

          const first = await runCrashChild(
            "receiveCrashChild",
            { ...base, phase: "first" },
            c.failpoint,
          );
          if (!first.killed && c.unreachable) {
            expect(first.code, `the first child failed: ${first.stderr}`).toBe(0);
            ctx.skip(true, c.unreachable);
          }
          expectKilledAt(first, c.failpoint);
          // Only the first message can have been handled: the others were still running.
          expect(ids.slice(0, 1)).toEqual(expect.arrayContaining(handled()));

          const restart = await runCrashChild("receiveCrashChild", { ...base, phase: "restart" });
          expect(restart.code, `restart failed: ${restart.stderr}`).toBe(0);
          const all = handled();
          const missing = ids.filter((id) => !all.includes(id));
          expect(missing, "messages lost across the crash").toEqual([]);
          expect([...all].sort(), "each message handled exactly once").toEqual([...ids].sort());
        },
        { timeout: scaledMs(40_000) },
      );
    }
  });
}
