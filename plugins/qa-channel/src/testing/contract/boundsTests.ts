/**
 * Contract tests: what retries cost the platform. Persistent 5xx and timeouts are bounded by the
 * backoff and `maxAttempts` (counted on the fake's calls); an answer that arrives after the
 * client gave up leaves what the declared guarantee promises.
 *
 * @module
 */
import { type DeliveryOptions, eventually, scaledMs } from "@herald/plugin-sdk/testing";
import { expect } from "vitest";
import { expectGuaranteed, guaranteeOf } from "./guarantee.ts";
import type { ContractSuite, ContractTestContext } from "./registry.ts";
import { CONTRACT_DELIVERY, type ContractRun, openRun, settled } from "./setup.ts";
import type { ContractCall } from "./types.ts";

/** Few attempts, so exhausting them stays fast. */
const MAX_ATTEMPTS = 4;
const BOUNDED: DeliveryOptions = {
  ...CONTRACT_DELIVERY,
  backoff: { ...CONTRACT_DELIVERY.backoff, maxAttempts: MAX_ATTEMPTS },
};
/** The client timeout the suite asks for in late-answer tests, in ms. */
const SHORT_TIMEOUT_MS = 500;

function callsOf(run: ContractRun, ctx: ContractTestContext): () => readonly ContractCall[] {
  const calls = run.platform.calls?.bind(run.platform);
  ctx.skip(!calls, "the fake platform does not expose its calls (platform.calls)");
  return calls as NonNullable<typeof calls>;
}

/** The equal-jitter floor of the backoff after attempt `n` (1-based), in ms. */
function backoffFloorMs(n: number): number {
  const { baseMs, maxMs } = CONTRACT_DELIVERY.backoff;
  return Math.min(maxMs, baseMs * 2 ** (n - 1)) / 2;
}

/** The client timeout the adapter declares (the suite's hint when the harness honoured it). */
function timeoutOf(run: ContractRun): number {
  return run.adapter.capabilities.delivery?.requestTimeoutMs ?? 30_000;
}

/** Registers the bounded-retry (`retry`) and late-answer (`unknown_send`) tests. */
export function boundsTests(suite: ContractSuite): void {
  const { harness: h, test, describe } = suite;
  if (suite.has("retry"))
    describe("bounded retries", () => {
      // kills: 5xx classified as not_dispatched; retries not bounded by maxAttempts
      test(
        "retry.persistent-5xx-bounded",
        "a platform answering 503 to every call: at most maxAttempts calls, spaced by the backoff; an ambiguous failure, nothing visible",
        async (ctx) => {
          const run = await openRun(h, { delivery: BOUNDED });
          const calls = callsOf(run, ctx);
          const guarantee = guaranteeOf(h, run.adapter);
          const target = await run.platform.createTarget("group");
          run.platform.faults.failNext({ kind: "status", status: 503 }, { op: "send", times: 50 });
          await run.runtime.enqueue(run.message(target, "never lands"), { idempotencyKey: "b5" });
          const intent = await settled(run, "b5");
          const sends = calls().filter((c) => c.op === "send");
          expect(sends.length).toBeGreaterThanOrEqual(1);
          expect(sends.length, "platform calls beyond maxAttempts").toBeLessThanOrEqual(
            MAX_ATTEMPTS,
          );
          for (const [i, call] of sends.entries()) {
            if (i === 0) continue;
            const gap = call.at - (sends[i - 1] as ContractCall).at;
            expect(gap, `gap before call ${i + 1}`).toBeGreaterThanOrEqual(backoffFloorMs(i) - 5);
          }
          expect(intent.status).not.toBe("sent");
          expect(intent.failure, "a 5xx may have been applied: maybe_sent").toMatchObject({
            evidence: "maybe_sent",
          });
          if (guarantee === "hold") expect(sends).toHaveLength(1);
          expect(await run.visible(target)).toEqual([]);
        },
      );

      // kills: timeout classified as not_dispatched; retries not bounded by maxAttempts
      test(
        "retry.persistent-timeout-bounded",
        "a platform answering every call later than the client waits: at most maxAttempts calls, at most one visible copy with a key",
        async (ctx) => {
          const run = await openRun(h, {
            delivery: BOUNDED,
            platform: { requestTimeoutMs: SHORT_TIMEOUT_MS },
          });
          const calls = callsOf(run, ctx);
          const guarantee = guaranteeOf(h, run.adapter);
          const delayMs = timeoutOf(run) + 100;
          const target = await run.platform.createTarget("group");
          run.platform.faults.failNext({ kind: "delay", delayMs }, { op: "send", times: 50 });
          await run.runtime.enqueue(run.message(target, "slow platform"), {
            idempotencyKey: "bt",
          });
          const intent = await settled(run, "bt", 30_000);
          // A delayed call is recorded once the platform applied it.
          await new Promise((resolve) => setTimeout(resolve, delayMs + 100));
          const sends = calls().filter((c) => c.op === "send");
          expect(sends.length).toBeGreaterThanOrEqual(1);
          expect(sends.length, "platform calls beyond maxAttempts").toBeLessThanOrEqual(
            MAX_ATTEMPTS,
          );
          expect(intent.failure?.evidence ?? "maybe_sent").toBe("maybe_sent");
          if (guarantee === "hold") expect(sends).toHaveLength(1);
          const copies = (await run.visible(target)).length;
          if (guarantee === "native-key" || guarantee === "reconcile-complete") {
            expect(copies).toBe(1);
          } else {
            expect(copies).toBeLessThanOrEqual(sends.length);
          }
        },
        { timeout: scaledMs(40_000) },
      );
    });

  if (suite.has("unknown_send"))
    describe("late answers", () => {
      test(
        "unknown-send.late-reply",
        "the platform stores the message but answers after the client timeout: exactly what the declared guarantee promises",
        async (ctx) => {
          const run = await openRun(h, { platform: { requestTimeoutMs: SHORT_TIMEOUT_MS } });
          const calls = callsOf(run, ctx);
          const guarantee = guaranteeOf(h, run.adapter);
          const target = await run.platform.createTarget("group");
          run.platform.faults.failNext(
            { kind: "delay", delayMs: timeoutOf(run) + 100 },
            { op: "send" },
          );
          await run.runtime.enqueue(run.message(target, "answered late"), {
            idempotencyKey: "late",
          });
          const intent = await settled(run, "late");
          await eventually(
            () => calls().filter((c) => c.outcome === "delayed"),
            (c) => c.length === 1,
            { what: "the platform to apply the delayed call", timeoutMs: 20_000 },
          );
          expectGuaranteed(guarantee, {
            intent: await run.intent("late"),
            expected: "answered late",
            before: ["answered late"],
            after: await run.visible(target),
          });
          expect(intent.failure?.evidence ?? "maybe_sent").toBe("maybe_sent");
        },
        { timeout: scaledMs(40_000) },
      );
    });
}
