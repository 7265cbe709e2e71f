/**
 * The declared guarantee is checked against the adapter: every QA delivery mode maps to its
 * guarantee, and a declaration the adapter does not support fails with what it needs.
 */
import { describe, expect, it } from "vitest";
import type { QaDeliveryMode } from "../../config.ts";
import { QA_GUARANTEES, qaHarness } from "../harness.ts";
import { capabilityGuarantee, countDuplicates, guaranteeOf } from "./guarantee.ts";

const modes: QaDeliveryMode[] = ["idempotent", "reconcile", "at_least_once", "hold"];
const connection = (delivery: QaDeliveryMode) => ({
  baseUrl: "http://127.0.0.1:9",
  token: "bot:secret",
  maxLength: 120,
  delivery,
});

describe("declared guarantees", () => {
  it.each(modes)("qa-channel delivery %s declares what its capabilities give", (delivery) => {
    const harness = qaHarness({ delivery });
    const adapter = harness.createAdapter(connection(delivery));
    expect(guaranteeOf(harness, adapter)).toBe(QA_GUARANTEES[delivery]);
    expect(capabilityGuarantee(adapter)).toBe(QA_GUARANTEES[delivery]);
  });

  it("a reconciler that can answer unresolved is not exactly once", () => {
    const harness = qaHarness({ delivery: "reconcile" });
    const adapter = harness.createAdapter(connection("reconcile"));
    const bestEffort = {
      ...adapter,
      capabilities: {
        ...adapter.capabilities,
        delivery: {
          ...adapter.capabilities.delivery,
          reconcile: { notSent: "best_effort" as const },
        },
      },
    };
    expect(capabilityGuarantee(bestEffort)).toBe("reconcile-best-effort");
    expect(() => guaranteeOf(harness, bestEffort)).toThrow(
      /harness.guarantee is "reconcile-complete", which needs send.reconcileUnknownSend with capabilities.delivery.reconcile.notSent: "complete".*give "reconcile-best-effort"/,
    );
  });

  it("a native-key declaration without idempotencyKey fails naming the field", () => {
    const harness = { ...qaHarness({ delivery: "hold" }), guarantee: "native-key" as const };
    const adapter = harness.createAdapter(connection("hold"));
    expect(() => guaranteeOf(harness, adapter)).toThrow(
      /needs capabilities.delivery.idempotencyKey: true; the adapter's capabilities give "hold"/,
    );
  });

  it("an unknown declaration lists the known ones", () => {
    const harness = { ...qaHarness(), guarantee: "exactly_once" as never };
    expect(() => guaranteeOf(harness, harness.createAdapter(connection("idempotent")))).toThrow(
      /declare one of native-key, reconcile-complete, reconcile-best-effort, at-least-once, hold/,
    );
  });

  it("counts repeated parts as duplicates", () => {
    expect(countDuplicates(["a b", "c", "a  b"])).toEqual({ unique: ["a b", "c"], duplicates: 1 });
  });
});
