/**
 * [H23] The feature mutants against the QA channel: each must be killed by the `features`
 * contract test it names (a survivor fails the run).
 */
import { qaHarness } from "../../harness.ts";
import { describeMutantCatalog } from "./describe.ts";
import { FEATURE_MUTANTS } from "./features.ts";

describeMutantCatalog(qaHarness(), FEATURE_MUTANTS, { timeoutMs: 120_000 });
