/**
 * A mutant harness: the real harness of a channel with one mutant applied to the adapter it
 * builds (and to the sink its receiver delivers into). Crash-test children rebuild the same
 * mutant through {@link mutantHarnessFromModule}.
 *
 * @module
 */
import { setCoreMutations } from "@herald/plugin-sdk/testing";
import { MutantNotApplicableError } from "../registry.ts";
import type { ContractHarness, ContractHarnessModule, JsonValue } from "../types.ts";
import { CHANNEL_MUTANTS } from "./catalog.ts";
import type { Mutant } from "./types.ts";

/** The harness `base` with `mutant` applied. `module` rebuilds the same mutant in a child. */
export function mutantHarness(base: ContractHarness, mutant: Mutant): ContractHarness {
  const createReceiver = base.createReceiver?.bind(base);
  return {
    ...base,
    name: `${base.name}, mutant ${mutant.id}`,
    ...(base.module
      ? {
          module: {
            url: import.meta.url,
            exportName: "mutantHarnessFromModule",
            args: { base: base.module as JsonValue, mutant: mutant.id },
          },
        }
      : {}),
    platform: (options) => base.platform(options),
    createAdapter(connection) {
      const adapter = base.createAdapter(connection);
      if (!mutant.adapter) return adapter;
      const mutated = mutant.adapter(adapter, connection);
      // The mutant wraps a capability this adapter lacks: nothing is mutated, nothing to judge.
      if (mutated === adapter && !mutant.sink && !mutant.core)
        throw new MutantNotApplicableError(
          `mutant ${mutant.id} changes nothing on this adapter (it has no ${mutant.kind} to break)`,
        );
      return mutated;
    },
    ...(createReceiver
      ? {
          createReceiver: (connection, sink) =>
            createReceiver(connection, mutant.sink ? mutant.sink(sink) : sink),
        }
      : {}),
  };
}

/**
 * Harness factory for crash-test children (`module.exportName`): loads the base harness from
 * its module, applies the mutant named `mutant` (searched in `mutants`, by default
 * {@link CHANNEL_MUTANTS}) and switches its core mutations on for the child's lifetime.
 *
 * @throws TypeError when the base module exports no harness or the mutant is unknown.
 */
export async function mutantHarnessFromModule(
  args: { base: ContractHarnessModule; mutant: string },
  mutants: readonly Mutant[] = CHANNEL_MUTANTS,
): Promise<ContractHarness> {
  const mod = (await import(args.base.url)) as Record<string, unknown>;
  const exported = mod[args.base.exportName ?? "contractHarness"];
  const base = (typeof exported === "function" ? await exported(args.base.args) : exported) as
    | ContractHarness
    | undefined;
  if (!base?.createAdapter) throw new TypeError(`${args.base.url} exports no contract harness`);
  const mutant = mutants.find((m) => m.id === args.mutant);
  if (!mutant) throw new TypeError(`unknown mutant "${args.mutant}"`);
  if (mutant.core) setCoreMutations(mutant.core);
  return mutantHarness(base, mutant);
}
