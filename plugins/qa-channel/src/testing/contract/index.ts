/**
 * `@herald/plugin-qa-channel/contract`: the contract suite every herald channel adapter must
 * pass (DESIGN §9), as one plain function that registers Vitest tests for a
 * {@link ContractHarness}: send and receipts, multi-part batches, edit / delete, retry and
 * backoff, rate limits, unknown-after-send, recovery after a killed process, inbound
 * normalization, origin / echo drop, dedupe, ordering, live previews and rendering limits.
 *
 * @example
 * // plugins/telegram/src/contract.test.ts
 * import { describeChannelContract } from "@herald/plugin-qa-channel/contract";
 * import { contractHarness } from "./testing/index.ts";
 *
 * describeChannelContract(contractHarness);
 *
 * @packageDocumentation
 */

export { describeChannelContract } from "./describeContract.ts";
export {
  ContractDiscoveryError,
  type DiscoveredHarness,
  discoverWorkspaceHarnesses,
} from "./discover.ts";
export { capabilityGuarantee, guaranteeOf } from "./guarantee.ts";
export {
  CHANNEL_MUTANTS,
  CLASSIFY_MUTANTS,
  KEY_MUTANTS,
  LIVE_MUTANTS,
  RECEIVE_MUTANTS,
  RECONCILE_MUTANTS,
  SEND_MUTANTS,
} from "./mutants/catalog.ts";
export {
  describeMutantCatalog,
  formatMutantSummary,
  type MutantCatalogOptions,
  type MutantCatalogResult,
} from "./mutants/describe.ts";
export { mutantHarness, mutantHarnessFromModule } from "./mutants/harness.ts";
export type { Mutant, MutantKind } from "./mutants/types.ts";
export type {
  ContractSkip,
  ContractSuite,
  ContractTestContext,
  ContractTestFn,
  ContractTestOptions,
} from "./registry.ts";
export { MutantNotApplicableError } from "./registry.ts";
export { CONTRACT_DELIVERY, CONTRACT_MAX_LENGTH } from "./setup.ts";
export * from "./types.ts";
