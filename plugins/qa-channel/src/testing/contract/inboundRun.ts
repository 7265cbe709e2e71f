/**
 * Runs of the inbound contract tests: a contract run with the channel's real receiver started,
 * and a wait for the outcome of one inbound message.
 *
 * @module
 */
import { eventually, type ReceiveOutcome } from "@herald/plugin-sdk/testing";
import type { ContractTestContext } from "./registry.ts";
import { type ContractRun, openRun, type RunOptions } from "./setup.ts";
import type { ContractHarness, ContractInbound } from "./types.ts";

/** Opens a run with a receiver, or skips the test when the channel cannot receive. */
export async function inboundRun(
  h: ContractHarness,
  ctx: ContractTestContext,
  options: RunOptions = {},
): Promise<ContractRun & { inbound: ContractInbound }> {
  const run = await openRun(h, options);
  ctx.skip(!run.platform.inbound, "send-only channel: the fake platform has no inbound");
  ctx.skip(!h.createReceiver, "the harness has no createReceiver");
  await run.startReceiver();
  return Object.assign(run, { inbound: run.platform.inbound as ContractInbound });
}

/** The platform message id of an outcome that carries a message (else undefined). */
export const idOf = (o: ReceiveOutcome) =>
  "message" in o ? o.message.platformMessageId : undefined;

/** Waits for the settled outcome of inbound message `platformMessageId` (throws on timeout). */
export function outcomeFor(run: ContractRun, platformMessageId: string) {
  return eventually(
    () => run.outcomes.find((o) => idOf(o) === platformMessageId),
    (o) => o !== undefined,
    { what: `the outcome of inbound message ${platformMessageId}` },
  ) as Promise<ReceiveOutcome>;
}
