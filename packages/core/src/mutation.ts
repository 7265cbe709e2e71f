/**
 * **Test-only** core mutations: deliberate bugs at exact spots in core, switched on by the
 * contract suite's mutant catalog (`@herald/plugin-qa-channel/contract`, DESIGN §9 "Mutant
 * adapters prove the suite bites") to prove that a contract test catches a fault that lives in
 * core rather than in an adapter. Every mutation is **off by default**; nothing but a mutation
 * test may switch one on. Like failpoints, a check is a no-op (one `Set` lookup) when none is on.
 *
 * Switched on in-process with {@link setCoreMutations}, or for a child process (crash tests)
 * through `HERALD_TEST_MUTATIONS="live.keep-previews-after-fresh-final"` (`;`-separated).
 *
 * @module
 */

/**
 * The mutations core knows, each read at exactly one spot:
 * - `live.keep-previews-after-fresh-final`: after a live session's final was sent as a new
 *   message (fresh, not edited over the previews), the previews are not deleted (a preview stays
 *   visible next to the final). Read in `completeAfterFinal` (`live/cleanup.ts`).
 */
export type CoreMutation = "live.keep-previews-after-fresh-final";

/** Every {@link CoreMutation}. */
export const CORE_MUTATIONS: readonly CoreMutation[] = ["live.keep-previews-after-fresh-final"];

let active: Set<string> | undefined;

function fromEnv(): Set<string> {
  const names = (process.env.HERALD_TEST_MUTATIONS ?? "")
    .split(";")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of names) assertKnown(name);
  return new Set(names);
}

function assertKnown(name: string): void {
  if (!(CORE_MUTATIONS as readonly string[]).includes(name)) {
    throw new TypeError(`unknown core mutation "${name}" (known: ${CORE_MUTATIONS.join(", ")})`);
  }
}

/**
 * **Test-only.** Whether `name` is switched on. Core reads it at the mutation's one spot.
 */
export function coreMutation(name: CoreMutation): boolean {
  active ??= fromEnv();
  return active.size > 0 && active.has(name);
}

/**
 * **Test-only.** Switches exactly `names` on (replacing what was on) for this process; returns
 * a function that switches back to what was on before. Never call it outside a mutation test.
 *
 * @throws TypeError on an unknown mutation name.
 */
export function setCoreMutations(names: readonly CoreMutation[]): () => void {
  for (const name of names) assertKnown(name);
  const before = active ?? fromEnv();
  active = new Set(names);
  return () => {
    active = before;
  };
}
