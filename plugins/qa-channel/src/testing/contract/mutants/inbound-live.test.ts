/**
 * The mutant catalog, part 3: receive path (dedupe, echoes, watermark) and live (previews,
 * typing, the core mutation), each killed by the contract test it names.
 */
import { qaHarness } from "../../harness.ts";
import { LIVE_MUTANTS, RECEIVE_MUTANTS } from "./catalog.ts";
import { describeMutantCatalog } from "./describe.ts";

describeMutantCatalog(qaHarness(), [...RECEIVE_MUTANTS, ...LIVE_MUTANTS]);
