/**
 * Contract tests: retries and backoff, rate limits, unknown-after-send, ordering. Every outcome
 * is asserted on the platform's visible state and the intent's stored status.
 *
 * @module
 */
import { DeliveryFailedError, eventually, scaledMs } from "@herald/plugin-sdk/testing";
import { expect } from "vitest";
import { capabilityGuarantee, expectGuaranteed, guaranteeOf } from "./guarantee.ts";
import { announcesRetryAfter, retryAfterSkip } from "./harnessChecks.ts";
import type { ContractSuite } from "./registry.ts";
import { CONTRACT_MAX_LENGTH, normalizeSpace, openRun, settled } from "./setup.ts";
import type { JsonValue } from "./types.ts";

const texts = async (visible: Promise<Array<{ text: string }>>) =>
  (await visible).map((m) => normalizeSpace(m.text));

/** Registers the `retry`, `rate_limit`, `unknown_send` and `ordering` areas. */
export function deliveryTests(suite: ContractSuite): void {
  const { harness: h, test, describe } = suite;
  if (suite.has("retry"))
    describe("retry and backoff", () => {
      test(
        "retry.refused-connection",
        "retries a refused connection with backoff and delivers once (C01 control)",
        async () => {
          const run = await openRun(h);
          const target = await run.platform.createTarget("group");
          const restore = await run.platform.faults.refuseConnections();
          try {
            await run.runtime.enqueue(run.message(target, "after the outage"), {
              idempotencyKey: "r1",
            });
            const failed = await eventually(
              () => run.intent("r1"),
              (i) => (i?.attempt ?? 0) >= 1 && i?.status === "pending",
              { what: "a failed first attempt" },
            );
            expect(failed?.failure).toMatchObject({
              kind: "transient",
              evidence: "not_dispatched",
            });
          } finally {
            await restore();
          }
          const intent = await settled(run, "r1");
          expect(intent.status).toBe("sent");
          expect(await texts(run.visible(target))).toEqual(["after the outage"]);
        },
      );

      test(
        "retry.permanent-rejection",
        "does not retry a permanent rejection: the send fails with the reason kept",
        async () => {
          const run = await openRun(h);
          const target = await run.platform.createTarget("group");
          run.platform.faults.failNext(
            { kind: "status", status: 403, code: "forbidden", description: "bot not in chat" },
            { op: "send" },
          );
          const error = await run.runtime.send(run.message(target, "no access")).catch((e) => e);
          expect(error).toBeInstanceOf(DeliveryFailedError);
          expect((error as DeliveryFailedError).failure).toMatchObject({
            kind: "permission",
            evidence: "not_dispatched",
          });
          expect(await run.visible(target)).toEqual([]);
        },
      );
    });

  if (suite.has("rate_limit"))
    describe("rate limits", () => {
      test(
        "rate-limit.body-retry-after",
        "waits the retry-after the platform gave in its error body, then delivers once",
        async (ctx) => {
          ctx.skip(!announcesRetryAfter(h, "body"), retryAfterSkip(h, "body"));
          const run = await openRun(h);
          const target = await run.platform.createTarget("group");
          run.platform.faults.failNext(
            { kind: "rate_limit", retryAfterMs: 400, via: "body" },
            { op: "send" },
          );
          const started = Date.now();
          await run.runtime.send(run.message(target, "throttled"));
          expect(Date.now() - started).toBeGreaterThanOrEqual(380);
          expect(await texts(run.visible(target))).toEqual(["throttled"]);
        },
      );

      test(
        "rate-limit.header-retry-after",
        "honours a Retry-After header (whole seconds) when the body has no wait",
        async (ctx) => {
          ctx.skip(!announcesRetryAfter(h, "header"), retryAfterSkip(h, "header"));
          const run = await openRun(h);
          const target = await run.platform.createTarget("group");
          run.platform.faults.failNext(
            { kind: "rate_limit", retryAfterMs: 1_000, via: "header" },
            { op: "send" },
          );
          const started = Date.now();
          await run.runtime.send(run.message(target, "header throttled"));
          expect(Date.now() - started).toBeGreaterThanOrEqual(950);
          expect(await texts(run.visible(target))).toEqual(["header throttled"]);
        },
      );

      test(
        "rate-limit.other-conversations",
        "keeps other conversations flowing while one is throttled (C05)",
        async () => {
          const run = await openRun(h);
          const slow = await run.platform.createTarget("group");
          const fast = await run.platform.createTarget("group");
          // The throttle outlasts the fast send however busy the machine (scaled), and the
          // assertion is an ordering: the fast chat was served while the slow one still waited.
          run.platform.faults.failNext(
            { kind: "rate_limit", retryAfterMs: scaledMs(1_500) },
            { op: "send" },
          );
          await run.runtime.enqueue(run.message(slow, "slow chat"), { idempotencyKey: "slow" });
          await eventually(
            () => run.intent("slow"),
            (i) => (i?.attempt ?? 0) >= 1,
          );
          await run.runtime.send(run.message(fast, "fast chat"));
          expect((await run.intent("slow"))?.status).not.toBe("sent");
          expect((await settled(run, "slow")).status).toBe("sent");
          expect(await texts(run.visible(slow))).toEqual(["slow chat"]);
        },
      );
      test(
        "rate-limit.shared-with-previews",
        "a 429 on a send pauses that chat's previews for the retry-after, and a 429 on a preview pauses its sends",
        async (ctx) => {
          const run = await openRun(h);
          ctx.skip(
            !run.adapter.capabilities.live?.edit || !run.adapter.send.edit,
            "the channel cannot edit messages (capabilities.live.edit + send.edit): no previews",
          );
          const target = await run.platform.createTarget("group");
          // The account of the run's messages: a session names it like a send does.
          const { accountId } = run.message(target, "");
          const account = accountId !== undefined ? { accountId } : {};
          // A durable send answered 429: the chat's first preview waits for the retry-after.
          // Retry-afters scaled (HERALD_TEST_TIME_SCALE): the real-time waits below stay inside them
          // on a busy machine.
          run.platform.faults.failNext(
            { kind: "rate_limit", retryAfterMs: scaledMs(1_500) },
            { op: "send" },
          );
          await run.runtime.enqueue(run.message(target, "durable first"), { idempotencyKey: "d1" });
          // The 429 has come back and is recorded (`attempt` counts from the dispatch, while the
          // intent is still `sending`: a preview opened then would race the pause).
          await eventually(
            () => run.intent("d1"),
            (i) => i?.failure?.kind === "rate_limit",
            { what: "the send answered 429" },
          );
          const live = await run.runtime.live({ channel: run.adapter.id, target, ...account });
          live.update("preview");
          await new Promise((r) => setTimeout(r, 1_000));
          expect(await texts(run.visible(target))).toEqual([]);
          await live.finalize("final");
          expect((await settled(run, "d1")).status).toBe("sent");
          expect([...(await texts(run.visible(target)))].sort()).toEqual([
            "durable first",
            "final",
          ]);

          // A preview answered 429: a send to that chat waits for the retry-after too.
          const other = await run.platform.createTarget("group");
          run.platform.faults.failNext(
            { kind: "rate_limit", retryAfterMs: scaledMs(3_000) },
            { op: "send" },
          );
          const second = await run.runtime.live({
            channel: run.adapter.id,
            target: other,
            ...account,
          });
          second.update("preview");
          // Time for the preview's call to be answered 429 even on a loaded machine; the send
          // after it still has ≥ 2 s of the 3 s retry-after to wait out.
          await new Promise((r) => setTimeout(r, 1_000));
          const started = Date.now();
          // Its wait outlasts the scaled retry-after (the send's 30 s default is not scaled).
          await run.runtime.send(run.message(other, "durable second"), {
            waitMs: scaledMs(30_000),
          });
          expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
          await second.finalize("final");
          expect([...(await texts(run.visible(other)))].sort()).toEqual([
            "durable second",
            "final",
          ]);
        },
      );
    });

  if (suite.has("unknown_send"))
    describe("unknown after send", () => {
      test(
        "unknown-send.guarantee-declared",
        "the harness declares the guarantee its adapter's capabilities give (native key, reconciler, policy)",
        async () => {
          const platform = await h.platform({ maxLength: CONTRACT_MAX_LENGTH });
          try {
            const adapter = h.createAdapter(platform.connection as JsonValue);
            expect(guaranteeOf(h, adapter)).toBe(capabilityGuarantee(adapter));
          } finally {
            await platform.close();
          }
        },
      );

      test(
        "unknown-send.reset-after-accept",
        "after the platform stored the message and the answer was lost: exactly what the declared guarantee promises (C01)",
        async () => {
          const run = await openRun(h);
          const guarantee = guaranteeOf(h, run.adapter);
          const target = await run.platform.createTarget("group");
          run.platform.faults.failNext({ kind: "reset_after_accept" }, { op: "send" });
          await run.runtime.enqueue(run.message(target, "landed once"), { idempotencyKey: "u1" });
          const intent = await settled(run, "u1");
          expectGuaranteed(guarantee, {
            intent,
            expected: "landed once",
            before: ["landed once"],
            after: await run.visible(target),
          });
          expect(intent.failure?.evidence ?? "maybe_sent").toBe("maybe_sent");
        },
      );

      test(
        "unknown-send.reset-before-accept",
        "after the connection broke before the platform stored it: delivered once, or held with nothing resent",
        async () => {
          const run = await openRun(h);
          const guarantee = guaranteeOf(h, run.adapter);
          const target = await run.platform.createTarget("group");
          run.platform.faults.failNext({ kind: "reset_before_accept" }, { op: "send" });
          await run.runtime.enqueue(run.message(target, "lost then sent"), {
            idempotencyKey: "u2",
          });
          const intent = await settled(run, "u2");
          const after = await run.visible(target);
          expectGuaranteed(guarantee, { intent, expected: "lost then sent", before: [], after });
          // Nothing was stored before the replay: even at-least-once shows it once.
          if (intent.status === "sent")
            expect(await texts(run.visible(target))).toEqual(["lost then sent"]);
        },
      );
    });

  if (suite.has("ordering"))
    describe("ordering", () => {
      test(
        "ordering.send-order",
        "delivers messages to one conversation in send order, even when the first needs a retry",
        async () => {
          const run = await openRun(h);
          const target = await run.platform.createTarget("group");
          run.platform.faults.failNext({ kind: "rate_limit", retryAfterMs: 200 }, { op: "send" });
          for (const n of [1, 2, 3, 4]) {
            await run.runtime.enqueue(run.message(target, `message ${n}`), {
              idempotencyKey: `o${n}`,
            });
          }
          for (const n of [1, 2, 3, 4]) expect((await settled(run, `o${n}`)).status).toBe("sent");
          expect(await texts(run.visible(target))).toEqual([
            "message 1",
            "message 2",
            "message 3",
            "message 4",
          ]);
        },
      );
    });
}
