/**
 * Declared delivery guarantees (issue [H16] item 3): what a harness promises for a send whose
 * outcome is unknown (a reset, a timeout, a crash after the platform accepted), checked against
 * the adapter's capabilities, and the one assertion every crash and timeout test makes with it.
 *
 * @module
 */
import type { ChannelMessageAdapter } from "@herald/plugin-sdk/channel-message";
import { type DurableSendIntent, isHeldForOperator } from "@herald/plugin-sdk/testing";
import { expect } from "vitest";
import { normalizeSpace as norm } from "./setup.ts";
import type { ContractGuarantee, ContractHarness } from "./types.ts";

/**
 * The guarantee an adapter's capabilities give (the strongest path core takes for an unknown
 * send, DESIGN §3 "Replay gate"): a native idempotency key; else a reconciler whose `not_sent`
 * is complete or best effort; else `unknownSendPolicy`.
 */
export function capabilityGuarantee(adapter: ChannelMessageAdapter): ContractGuarantee {
  const delivery = adapter.capabilities.delivery ?? {};
  if (delivery.idempotencyKey) return "native-key";
  if (adapter.send.reconcileUnknownSend) {
    return delivery.reconcile?.notSent === "complete"
      ? "reconcile-complete"
      : "reconcile-best-effort";
  }
  return delivery.unknownSendPolicy === "at_least_once" ? "at-least-once" : "hold";
}

const NEEDS: Record<ContractGuarantee, string> = {
  "native-key": "capabilities.delivery.idempotencyKey: true",
  "reconcile-complete":
    'send.reconcileUnknownSend with capabilities.delivery.reconcile.notSent: "complete" (and no idempotencyKey)',
  "reconcile-best-effort":
    'send.reconcileUnknownSend with capabilities.delivery.reconcile.notSent "best_effort" or absent (and no idempotencyKey)',
  "at-least-once":
    'capabilities.delivery.unknownSendPolicy: "at_least_once", no idempotencyKey and no send.reconcileUnknownSend',
  hold: 'capabilities.delivery.unknownSendPolicy "hold" or absent, no idempotencyKey and no send.reconcileUnknownSend',
};

/**
 * The harness's declared guarantee, after checking the adapter supports exactly it.
 *
 * @throws TypeError naming the declaration, what it needs and what the adapter declares, when
 *   they disagree (a harness that over- or under-states its adapter must not pass).
 */
export function guaranteeOf(
  harness: ContractHarness,
  adapter: ChannelMessageAdapter,
): ContractGuarantee {
  const declared = harness.guarantee;
  if (!(declared in NEEDS)) {
    throw new TypeError(
      `${harness.name}: harness.guarantee is ${JSON.stringify(declared)}; ` +
        `declare one of ${Object.keys(NEEDS).join(", ")}`,
    );
  }
  const actual = capabilityGuarantee(adapter);
  if (actual !== declared) {
    throw new TypeError(
      `${harness.name}: harness.guarantee is "${declared}", which needs ${NEEDS[declared]}; ` +
        `the adapter's capabilities give "${actual}" (${NEEDS[actual]}): fix the declaration or the adapter`,
    );
  }
  return declared;
}

/** What a test saw once an unknown-outcome send settled. */
export type GuaranteeObservation = {
  /** The intent, settled (or held). */
  intent: DurableSendIntent | undefined;
  /** The whole text the intent sends (normalized). */
  expected: string;
  /** Visible messages of the intent before the retry/restart, in order (normalized texts). */
  before: readonly string[];
  /** Visible messages of the intent after it settled, in order. */
  after: ReadonlyArray<{ id: string; text: string }>;
};

/**
 * The visible parts without repeats: a text seen again is a duplicate (contract tests use texts
 * whose parts never repeat), counted.
 */
export function countDuplicates(texts: readonly string[]): {
  unique: string[];
  duplicates: number;
} {
  const unique: string[] = [];
  for (const t of texts.map(norm)) if (!unique.includes(t)) unique.push(t);
  return { unique, duplicates: texts.length - unique.length };
}

/**
 * Asserts exactly what `guarantee` promises for one intent whose outcome was unknown:
 * - `native-key`, `reconcile-complete`: `sent`, every part visible exactly once, the receipt
 *   names the visible messages;
 * - `at-least-once`: `sent`, every part visible, at most one duplicate (counted);
 * - `reconcile-best-effort`: like `at-least-once`, or held;
 * - `hold`: held for an operator (`unknown_after_send`, what `herald queue ls` shows as
 *   "(held)"), nothing resent: the chat shows what it showed before.
 */
export function expectGuaranteed(guarantee: ContractGuarantee, o: GuaranteeObservation): void {
  const { intent } = o;
  const { unique, duplicates } = countDuplicates(o.after.map((m) => m.text));
  const shown = norm(unique.join(" "));
  const status = `${intent?.status}${intent?.failure ? ` (${intent.failure.kind}/${intent.failure.evidence}: ${intent.failure.message})` : ""}`;
  const held = intent !== undefined && isHeldForOperator(intent);
  if (guarantee === "hold" || (guarantee === "reconcile-best-effort" && held)) {
    expect(
      held,
      `guarantee "${guarantee}": the intent must be held for an operator, is ${status}`,
    ).toBe(true);
    expect(intent?.status).toBe("unknown_after_send");
    expect(
      o.after.map((m) => norm(m.text)),
      `guarantee "${guarantee}": a held send resends nothing`,
    ).toEqual(o.before.map(norm));
    return;
  }
  expect(intent?.status, `guarantee "${guarantee}": the intent must end sent, is ${status}`).toBe(
    "sent",
  );
  expect(shown, `guarantee "${guarantee}": every part visible`).toBe(norm(o.expected));
  if (guarantee === "native-key" || guarantee === "reconcile-complete") {
    expect(duplicates, `guarantee "${guarantee}": no duplicate`).toBe(0);
    expect(intent?.receipt?.platformMessageIds).toEqual(o.after.map((m) => m.id));
    return;
  }
  expect(
    duplicates,
    `guarantee "${guarantee}": at most one duplicate per intent (saw ${duplicates})`,
  ).toBeLessThanOrEqual(1);
}
