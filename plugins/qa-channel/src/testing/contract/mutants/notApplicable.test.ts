// The catalog's "not applicable" verdict (issue [H27] trial fixes): a mutant that changes
// nothing on the adapter cannot be judged, and the summary lists it apart from survivors.
import { describe, expect, it } from "vitest";
import { qaHarness } from "../../harness.ts";
import { MutantNotApplicableError } from "../registry.ts";
import { formatMutantSummary } from "./describe.ts";
import { mutantHarness } from "./harness.ts";
import type { Mutant } from "./types.ts";

const noop: Mutant = {
  id: "history.noop",
  kind: "history",
  description: "wraps history, which this adapter lacks",
  killedBy: "features.history",
  adapter: (a) => a,
};

describe("mutant catalog: not applicable", () => {
  it("a mutant that hands the adapter back unchanged is not applicable", async () => {
    const base = qaHarness();
    const platform = await base.platform({ maxLength: 4_096 });
    try {
      const h = mutantHarness(base, noop);
      expect(() => h.createAdapter(platform.connection)).toThrow(MutantNotApplicableError);
      expect(() => h.createAdapter(platform.connection)).toThrow(
        "mutant history.noop changes nothing on this adapter (it has no history to break)",
      );
      // A mutant that also rewrites the sink still applies.
      const withSink = mutantHarness(base, { ...noop, sink: (s) => s });
      expect(withSink.createAdapter(platform.connection).id).toBe(
        base.createAdapter(platform.connection).id,
      );
    } finally {
      await platform.close();
    }
  });

  it("the summary reports not-applicable mutants apart, with the skip reason", () => {
    const summary = formatMutantSummary("acme", {
      killed: [],
      survived: [],
      notApplicable: [{ mutant: noop, reason: "the adapter declares no history" }],
      awaiting: [],
    });
    expect(summary).toBe(
      "mutant catalog (acme): 1 mutants, 0 killed, 0 survived, 1 not applicable, 0 awaiting their killing test\n" +
        "  n/a      history.noop → features.history (not applicable (killing test skipped: the adapter declares no history))",
    );
  });
});
