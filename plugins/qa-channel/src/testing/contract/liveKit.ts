/**
 * Steps shared by the `live` area's contract tests (liveTests.ts, nativeStreamTests.ts): open a
 * session on a new target, wait for a message, check that updates edit one message in place,
 * and reach the fake platform's typing indicator.
 *
 * @module
 */

import type { MessageTarget } from "@herald/plugin-sdk/channel-message";
import { eventually, type VisibleMessage } from "@herald/plugin-sdk/testing";
import { expect } from "vitest";
import type { ContractTestContext } from "./registry.ts";
import { type ContractRun, normalizeSpace } from "./setup.ts";

type LiveOptions = Parameters<ContractRun["runtime"]["live"]>[1];
type LiveSession = Awaited<ReturnType<ContractRun["runtime"]["live"]>>;

/** A new `kind` target on the run's platform and a live session to it under `options`. */
export async function startLive(
  run: ContractRun,
  kind: "direct" | "group",
  options: LiveOptions,
): Promise<{ target: MessageTarget; live: LiveSession }> {
  const target = await run.platform.createTarget(kind);
  const live = await run.runtime.live({ channel: run.adapter.id, target }, options);
  return { target, live };
}

/** Waits until exactly one message is visible on `target` (`what` names it on timeout). */
export function oneVisible(
  run: ContractRun,
  target: MessageTarget,
  what: string,
): Promise<VisibleMessage[]> {
  return eventually(
    () => run.visible(target),
    (v) => v.length === 1,
    { what },
  );
}

/**
 * Updates `live` with each of `steps`, waiting until the one visible message shows it and
 * asserting it is the same message every time (`sameMessage` says so on failure; `noun` names it
 * in the wait), then finalizes with `final`: the chat ends with that one message showing
 * `final`, and the receipt names it.
 */
export async function expectUpdatedInPlace(
  run: ContractRun,
  target: MessageTarget,
  live: LiveSession,
  steps: readonly string[],
  final: string,
  labels: { noun: string; sameMessage: string },
): Promise<void> {
  let firstId: string | undefined;
  for (const text of steps) {
    live.update(text);
    const [shown] = await eventually(
      () => run.visible(target),
      (v) => v.length === 1 && normalizeSpace(v[0]?.text ?? "") === text,
      { what: `${labels.noun} to show "${text}"` },
    );
    firstId ??= shown?.id;
    expect(shown?.id, labels.sameMessage).toBe(firstId);
  }
  const receipt = await live.finalize(final);
  expect((await run.visible(target)).map((m) => [m.id, normalizeSpace(m.text)])).toEqual([
    [firstId, final],
  ]);
  expect(receipt.primaryPlatformMessageId).toBe(firstId);
}

/**
 * The fake platform's typing probe (`isTyping`) bound to it; skips the test when the adapter
 * has no typing indicator (`live.typing`) or the fake cannot show one.
 */
export function typingProbe(
  run: ContractRun,
  ctx: ContractTestContext,
): (target: MessageTarget) => Promise<boolean> | boolean {
  const isTyping = run.platform.isTyping?.bind(run.platform);
  ctx.skip(!run.adapter.live?.typing, "the adapter has no typing indicator (live.typing)");
  ctx.skip(!isTyping, "the fake platform cannot show typing (isTyping)");
  return isTyping as NonNullable<typeof isTyping>;
}
