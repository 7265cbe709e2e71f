/**
 * The mutant catalog, part 2: idempotency keys, receipts, threads, edits and the QA-specific
 * mutants (each must be killed by the contract test it names; a survivor fails `pnpm check`).
 */
import { qaHarness } from "../../harness.ts";
import { KEY_MUTANTS, RECONCILE_MUTANTS, SEND_MUTANTS } from "./catalog.ts";
import { describeMutantCatalog } from "./describe.ts";
import { QA_MUTANTS, QA_RECONCILE_MUTANTS } from "./qa.ts";

describeMutantCatalog(qaHarness(), [...KEY_MUTANTS, ...SEND_MUTANTS, ...QA_MUTANTS]);
describeMutantCatalog(qaHarness({ delivery: "reconcile" }), [
  ...RECONCILE_MUTANTS,
  ...QA_RECONCILE_MUTANTS,
]);
