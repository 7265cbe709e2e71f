/**
 * Contract tests: how the adapter classifies each platform fault the fakes can script (DESIGN §3
 * "two evidence axes") — the failure kind × dispatch evidence **stored on the intent**, whether
 * the failure is retried, and the retry-after in the right unit (ms) — and the edit / delete
 * faults: "message is not modified" is not an error, errors in edit / delete are surfaced.
 *
 * Failures are read from what the runtime writes to the store (every failure patched onto the
 * intent), so a failure that a later successful retry clears is still seen.
 *
 * @module
 */
import type { DeliveryFailure } from "@herald/plugin-sdk/channel-message";
import {
  DeliveryFailedError,
  eventually,
  isHeldForOperator,
  type PlatformFault,
  scaledMs,
} from "@herald/plugin-sdk/testing";
import { expect } from "vitest";
import { announcesRetryAfter, retryAfterMissed, retryAfterSkip } from "./harnessChecks.ts";
import type { ContractSuite } from "./registry.ts";
import { type ContractRun, normalizeSpace, openRun, settled } from "./setup.ts";

/** Every failure the runtime wrote onto an intent of `run`, in write order. */
function recordFailures(run: ContractRun): DeliveryFailure[] {
  const seen: DeliveryFailure[] = [];
  const store = run.store;
  const transition = store.transitionIntents.bind(store);
  const update = store.updateIntent.bind(store);
  store.transitionIntents = async (transitions) => {
    for (const t of transitions) if (t.patch?.failure) seen.push(t.patch.failure);
    return transition(transitions);
  };
  store.updateIntent = async (id, expected, patch) => {
    if (patch.failure) seen.push(patch.failure);
    return update(id, expected, patch);
  };
  return seen;
}

/** Waits until the runtime stored a failure on the intent. */
function firstFailure(failures: DeliveryFailure[], timeoutMs = 5_000): Promise<DeliveryFailure[]> {
  return eventually(
    () => failures,
    (f) => f.length > 0,
    { what: "a failure stored on the intent", timeoutMs },
  );
}

type PermanentCase = {
  id: string;
  status: number;
  code: string;
  description: string;
  /** Kinds a correct adapter may store (a platform may name a 404 an auth failure). */
  kinds: readonly DeliveryFailure["kind"][];
};

/** The request timeout `classify.timeout` asks the platform for, in ms. */
const TIMEOUT_HINT_MS = 1_000;

const PERMANENT: readonly PermanentCase[] = [
  {
    id: "classify.status-400",
    status: 400,
    code: "bad_request",
    description: "Bad Request: payload rejected",
    kinds: ["invalid_payload"],
  },
  {
    id: "classify.status-401",
    status: 401,
    code: "unauthorized",
    description: "Unauthorized",
    kinds: ["auth"],
  },
  {
    id: "classify.status-403",
    status: 403,
    code: "forbidden",
    description: "Forbidden: bot was kicked",
    kinds: ["permission"],
  },
  {
    id: "classify.status-404",
    status: 404,
    code: "not_found",
    description: "Not Found",
    // Telegram answers 404 to a wrong token or API root: `auth` there.
    kinds: ["not_found", "auth"],
  },
  {
    id: "classify.status-409",
    status: 409,
    code: "conflict",
    description: "Conflict",
    kinds: ["conflict"],
  },
];

type AmbiguousCase = { id: string; title: string; fault: PlatformFault };

/** Faults after which the platform may have the message: stored as `maybe_sent`, never blind. */
const AMBIGUOUS: readonly AmbiguousCase[] = [
  {
    id: "classify.status-5xx",
    title: "a 5xx is `transient`, `maybe_sent` (the platform may have applied it)",
    fault: { kind: "status", status: 503, code: "unavailable", description: "Service Unavailable" },
  },
  {
    id: "classify.reset-before-accept",
    title: "a reset before the platform stored the call is `transient`, `maybe_sent`",
    fault: { kind: "reset_before_accept" },
  },
  {
    id: "classify.reset-after-accept",
    title: "a reset after the platform stored the call is `transient`, `maybe_sent`",
    fault: { kind: "reset_after_accept" },
  },
];

/** Registers the `classify` area. */
export function classifyTests(suite: ContractSuite): void {
  const { harness: h, test, describe } = suite;
  if (!suite.has("classify")) return;
  describe("failure classification", () => {
    for (const c of PERMANENT) {
      test(
        c.id,
        `a ${c.status} is permanent: ${c.kinds.join(" or ")}, not_dispatched, not retried`,
        async () => {
          const run = await openRun(h);
          const failures = recordFailures(run);
          const target = await run.platform.createTarget("group");
          run.platform.faults.failNext(
            { kind: "status", status: c.status, code: c.code, description: c.description },
            { op: "send" },
          );
          await run.runtime.enqueue(run.message(target, `answered ${c.status}`), {
            idempotencyKey: c.id,
          });
          const intent = await settled(run, c.id);
          expect(intent.status).toBe("failed");
          expect(intent.attempt).toBe(1);
          expect(c.kinds).toContain(intent.failure?.kind);
          expect(intent.failure?.evidence).toBe("not_dispatched");
          expect(failures.map((f) => f.evidence)).toEqual(["not_dispatched"]);
          expect(await run.visible(target)).toEqual([]);
        },
      );
    }

    for (const c of AMBIGUOUS) {
      test(c.id, c.title, async () => {
        const run = await openRun(h);
        const failures = recordFailures(run);
        const target = await run.platform.createTarget("group");
        run.platform.faults.failNext(c.fault, { op: "send" });
        await run.runtime.enqueue(run.message(target, "in doubt"), { idempotencyKey: c.id });
        const [first] = await firstFailure(failures);
        expect(first).toMatchObject({ kind: "transient", evidence: "maybe_sent" });
      });
    }

    test(
      "classify.timeout",
      "a call the platform answers after the client's request timeout is `transient`, `maybe_sent`",
      async (ctx) => {
        // A short client timeout (when the harness honours the hint): the test is about how
        // the timeout is classified, not how long it is, and waits it out in real time.
        const run = await openRun(h, { platform: { requestTimeoutMs: TIMEOUT_HINT_MS } });
        const timeoutMs = run.adapter.capabilities.delivery?.requestTimeoutMs;
        ctx.skip(
          timeoutMs === undefined,
          "the adapter declares no request timeout (capabilities.delivery.requestTimeoutMs)",
        );
        const failures = recordFailures(run);
        const target = await run.platform.createTarget("group");
        run.platform.faults.failNext(
          { kind: "delay", delayMs: (timeoutMs as number) + 1_000 },
          { op: "send" },
        );
        await run.runtime.enqueue(run.message(target, "slow answer"), {
          idempotencyKey: "timeout",
        });
        const [first] = await firstFailure(failures, 5_000 + (timeoutMs as number));
        expect(first).toMatchObject({ kind: "transient", evidence: "maybe_sent" });
      },
      { timeout: scaledMs(40_000) },
    );

    for (const via of ["body", "header"] as const) {
      test(
        `classify.rate-limit-${via}`,
        `a 429 with the wait in its ${via} is \`rate_limit\`, not_dispatched, retryAfterMs in ms, and the retry waits it`,
        async (ctx) => {
          ctx.skip(!announcesRetryAfter(h, via), retryAfterSkip(h, via));
          const run = await openRun(h);
          const failures = recordFailures(run);
          const target = await run.platform.createTarget("group");
          run.platform.faults.failNext(
            { kind: "rate_limit", retryAfterMs: 1_000, via },
            { op: "send" },
          );
          const started = Date.now();
          await run.runtime.enqueue(run.message(target, "throttled"), {
            idempotencyKey: `rl-${via}`,
          });
          const intent = await settled(run, `rl-${via}`);
          expect(intent.status).toBe("sent");
          expect(Date.now() - started, retryAfterMissed(h, via)).toBeGreaterThanOrEqual(950);
          const [first] = failures;
          expect(first).toMatchObject({ kind: "rate_limit", evidence: "not_dispatched" });
          // 1 s: neither read as 1 ms (seconds taken for ms) nor as 1000 s (ms taken for s).
          expect(first?.retryAfterMs, retryAfterMissed(h, via)).toBeGreaterThanOrEqual(1_000);
          expect(first?.retryAfterMs).toBeLessThan(2_000);
          expect((await run.visible(target)).map((m) => normalizeSpace(m.text))).toEqual([
            "throttled",
          ]);
        },
      );
    }

    test(
      "classify.rate-limit-no-wait",
      "a 429 without any retry-after is `rate_limit`, not_dispatched, retried with backoff",
      async () => {
        const run = await openRun(h);
        const failures = recordFailures(run);
        const target = await run.platform.createTarget("group");
        run.platform.faults.failNext(
          { kind: "status", status: 429, code: "rate_limited", description: "Too Many Requests" },
          { op: "send" },
        );
        await run.runtime.enqueue(run.message(target, "throttled, no wait given"), {
          idempotencyKey: "rl-none",
        });
        const intent = await settled(run, "rl-none");
        expect(intent.status).toBe("sent");
        expect(failures[0]).toMatchObject({ kind: "rate_limit", evidence: "not_dispatched" });
        expect((await run.visible(target)).map((m) => normalizeSpace(m.text))).toEqual([
          "throttled, no wait given",
        ]);
      },
    );
  });

  describe("edit and delete faults", () => {
    test(
      "classify.edit-not-modified",
      'an edit to the text the message already shows ("not modified") is not an error',
      async (ctx) => {
        const run = await openRun(h);
        ctx.skip(!run.adapter.send.edit, "the adapter cannot edit (send.edit)");
        const target = await run.platform.createTarget("group");
        const receipt = await run.runtime.send(run.message(target, "same words"));
        const edited = await run.runtime.edit(receipt, run.message(target, "same words"));
        expect(edited.primaryPlatformMessageId).toBe(receipt.primaryPlatformMessageId);
        expect((await run.visible(target)).map((m) => [m.id, normalizeSpace(m.text)])).toEqual([
          [receipt.primaryPlatformMessageId, "same words"],
        ]);
      },
    );

    test(
      "classify.edit-error-surfaced",
      "an edit the platform refuses fails with the reason; the message keeps its text",
      async (ctx) => {
        const run = await openRun(h);
        ctx.skip(!run.adapter.send.edit, "the adapter cannot edit (send.edit)");
        const target = await run.platform.createTarget("group");
        const receipt = await run.runtime.send(run.message(target, "original words"));
        run.platform.faults.failNext(
          { kind: "status", status: 403, code: "forbidden", description: "Forbidden" },
          { op: "edit" },
        );
        const error = await run.runtime.edit(receipt, run.message(target, "edited words")).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error, "the refused edit was reported as done").toBeInstanceOf(DeliveryFailedError);
        expect((error as DeliveryFailedError).failure?.kind).toBe("permission");
        expect((await run.visible(target)).map((m) => normalizeSpace(m.text))).toEqual([
          "original words",
        ]);
      },
    );

    test(
      "classify.delete-error-surfaced",
      "a delete the platform refuses fails with the reason; the message stays visible",
      async (ctx) => {
        const run = await openRun(h);
        ctx.skip(!run.adapter.send.delete, "the adapter cannot delete (send.delete)");
        const target = await run.platform.createTarget("group");
        const receipt = await run.runtime.send(run.message(target, "keep me"));
        run.platform.faults.failNext(
          { kind: "status", status: 403, code: "forbidden", description: "Forbidden" },
          { op: "delete" },
        );
        const outcome = await run.runtime
          .delete(receipt, run.message(target, ""), { idempotencyKey: "refused-delete" })
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        const intent = await run.intent("refused-delete");
        const surfaced =
          outcome instanceof DeliveryFailedError ||
          intent?.status === "failed" ||
          (intent !== undefined && isHeldForOperator(intent));
        expect(surfaced, "the refused delete was reported as done").toBe(true);
        expect((await run.visible(target)).map((m) => normalizeSpace(m.text))).toEqual(["keep me"]);
      },
    );
  });
}
