// The mutant catalog against the HTTP chat adapter (docs/plugin-authoring.md, "The mutant
// catalog"): each mutant — one plausible bug wrapped around this adapter — must be killed by the
// contract test it names. Left out: the mutants whose killing test does not apply to this
// plugin (a webhook has no polling watermark; the adapter has no typing indicator).
import { CHANNEL_MUTANTS, describeMutantCatalog } from "@herald/plugin-qa-channel/contract";
import { contractHarness } from "./testing/index.ts";

const notApplicable = new Set(["receive.crash-after-watermark", "live.no-typing-after-stop"]);

describeMutantCatalog(
  contractHarness,
  CHANNEL_MUTANTS.filter((m) => !notApplicable.has(m.killedBy)),
);
