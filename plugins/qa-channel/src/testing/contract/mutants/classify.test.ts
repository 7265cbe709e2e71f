/**
 * The mutant catalog, part 1: classification mutants against the QA adapter (each must be
 * killed by the contract test it names; a survivor fails `pnpm check`).
 */
import { qaHarness } from "../../harness.ts";
import { CLASSIFY_MUTANTS } from "./catalog.ts";
import { describeMutantCatalog } from "./describe.ts";

describeMutantCatalog(qaHarness(), CLASSIFY_MUTANTS);
