/**
 * Runs a mutant catalog as Vitest tests: a **control** (the unmutated harness passes every
 * killing test), then each mutant against exactly the test it names, in `expect: "failure"`
 * mode — a mutant whose test ran and passed has **survived** and fails the run. A mutant whose
 * killing test skipped itself (the harness lacks the capability it needs: a webhook channel has
 * no polling watermark) in the control run and against the mutant is **not applicable**: reported
 * with the skip reason, not a failure. A summary (count, each mutant → the test that killed it
 * and how, survivors, not-applicable mutants, mutants still awaiting their test) is printed after
 * the catalog ran.
 *
 * @module
 */
import { setCoreMutations } from "@herald/plugin-sdk/testing";
import { afterAll, beforeAll, describe } from "vitest";
import { describeChannelContract } from "../describeContract.ts";
import type { ContractHarness, ContractKill } from "../types.ts";
import { mutantHarness } from "./harness.ts";
import type { Mutant } from "./types.ts";

/** Options of {@link describeMutantCatalog}. */
export type MutantCatalogOptions = {
  /** Per-test timeout in ms (a mutant that hangs past it is killed by timeout). @defaultValue 20_000 */
  timeoutMs?: number;
  /** Where the summary goes. @defaultValue console.log */
  print?: (summary: string) => void;
};

/** What a catalog run found. */
export type MutantCatalogResult = {
  killed: Array<{ mutant: Mutant; kill: ContractKill }>;
  /** Mutants whose killing test ran and passed (or never reported a kill). */
  survived: Mutant[];
  /**
   * Mutants whose killing test was skipped as not applicable to the harness (in the control run
   * and against the mutant), with the skip reason. Not a failure. @defaultValue []
   */
  notApplicable?: Array<{ mutant: Mutant; reason: string }>;
  /** Mutants whose killing test is not in the suite yet (not counted as killed). */
  awaiting: Mutant[];
};

/** Formats a catalog result as the printed summary. */
export function formatMutantSummary(name: string, result: MutantCatalogResult): string {
  const notApplicable = result.notApplicable ?? [];
  const total =
    result.killed.length + result.survived.length + notApplicable.length + result.awaiting.length;
  const lines = [
    `mutant catalog (${name}): ${total} mutants, ${result.killed.length} killed, ` +
      `${result.survived.length} survived, ` +
      (notApplicable.length > 0 ? `${notApplicable.length} not applicable, ` : "") +
      `${result.awaiting.length} awaiting their killing test`,
    ...result.killed.map(
      ({ mutant, kill }) =>
        `  killed   ${mutant.id} → ${kill.testId} (${kill.by}: ${kill.message.slice(0, 100)})`,
    ),
    ...result.survived.map((m) => `  SURVIVED ${m.id} → ${m.killedBy} passed against it`),
    ...notApplicable.map(
      ({ mutant, reason }) =>
        `  n/a      ${mutant.id} → ${mutant.killedBy} (not applicable (killing test skipped: ${reason}))`,
    ),
    ...result.awaiting.map(
      (m) => `  awaiting ${m.id} → ${m.killedBy} (not in the suite yet; ${m.awaiting})`,
    ),
  ];
  return lines.join("\n");
}

/**
 * Registers the catalog for `base` under `describe("mutant catalog: <name>")`.
 *
 * @param base - the real, unmutated harness (its `module` lets crash-test children rebuild a
 *   mutant).
 * @param mutants - the mutants to run; each `killedBy` must name a contract test (an unknown id
 *   fails the collection) unless the mutant is marked `awaiting`.
 * @throws TypeError on duplicate mutant ids.
 */
export function describeMutantCatalog(
  base: ContractHarness,
  mutants: readonly Mutant[],
  options: MutantCatalogOptions = {},
): void {
  const ids = new Set<string>();
  for (const m of mutants) {
    if (ids.has(m.id)) throw new TypeError(`duplicate mutant id "${m.id}"`);
    ids.add(m.id);
  }
  const runnable = mutants.filter((m) => !m.awaiting);
  const kills = new Map<string, ContractKill>();
  // Skips by test id in the control run, and by mutant id against each mutant.
  const controlSkips = new Map<string, string>();
  const mutantSkips = new Map<string, { reason: string; mutantNotApplicable?: boolean }>();
  const timeouts = options.timeoutMs ? { timeoutMs: options.timeoutMs } : {};
  describe(`mutant catalog: ${base.name}`, () => {
    describeChannelContract(base, {
      ...timeouts,
      only: [...new Set(runnable.map((m) => m.killedBy))],
      variant: "control: the unmutated adapter passes every killing test",
      onSkip: (skip) => controlSkips.set(skip.testId, skip.reason),
    });
    for (const mutant of runnable) {
      describe(`mutant ${mutant.id}`, () => {
        if (mutant.core) {
          let restore: (() => void) | undefined;
          beforeAll(() => {
            restore = setCoreMutations(mutant.core ?? []);
          });
          afterAll(() => restore?.());
        }
        describeChannelContract(mutantHarness(base, mutant), {
          ...timeouts,
          only: [mutant.killedBy],
          expect: "failure",
          onKill: (kill) => kills.set(mutant.id, kill),
          onSkip: (skip) => mutantSkips.set(mutant.id, skip),
        });
      });
    }
    afterAll(() => {
      const notApplicable: Array<{ mutant: Mutant; reason: string }> = [];
      const result: MutantCatalogResult = { killed: [], survived: [], notApplicable, awaiting: [] };
      for (const mutant of mutants) {
        const kill = kills.get(mutant.id);
        const skipped = mutantSkips.get(mutant.id);
        if (mutant.awaiting) result.awaiting.push(mutant);
        else if (kill) result.killed.push({ mutant, kill });
        // Skipped for the harness itself (the control skipped it too), or a mutant that changes
        // nothing on this adapter: the test cannot judge it.
        else if (
          skipped !== undefined &&
          (skipped.mutantNotApplicable || controlSkips.has(mutant.killedBy))
        ) {
          notApplicable.push({ mutant, reason: skipped.reason });
        }
        // Skipped against the mutant only: the mutant hid the capability — it survived.
        else result.survived.push(mutant);
      }
      (options.print ?? console.log)(formatMutantSummary(base.name, result));
      if (result.survived.length > 0) {
        throw new Error(
          `mutants survived: ${result.survived.map((m) => `${m.id} (${m.killedBy})`).join(", ")}`,
        );
      }
    });
  });
}
