// The mutant catalog against the HTTP chat adapter (docs/plugin-authoring.md, "The mutant
// catalog"): each mutant — one plausible bug wrapped around this adapter — must be killed by the
// contract test it names. A mutant whose killing test does not apply to this plugin (a webhook
// has no polling watermark; the adapter has no typing indicator) is reported "not applicable"
// with the skip reason, not as a survivor: no hand filter needed.
import { CHANNEL_MUTANTS, describeMutantCatalog } from "@herald/plugin-qa-channel/contract";
import { contractHarness } from "./testing/index.ts";

describeMutantCatalog(contractHarness, CHANNEL_MUTANTS);
