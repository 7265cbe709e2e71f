/**
 * How contract tests are registered: every test has a stable **id** (`area.name`, e.g.
 * `batch.receipts`) next to its title, so a run can pick tests by id (`only`) and the mutant
 * catalog can name the test that must kill each mutant.
 *
 * In `expect: "failure"` mode (mutation testing of the suite itself) a test passes only when its
 * body fails: a body that passes means the mutant **survived**; a body that asks to be skipped
 * (the harness lacks the capability the test needs) is reported skipped through `onSkip` — it
 * cannot judge the mutant, which the catalog reports as not applicable.
 *
 * @module
 */
import { describe, it } from "vitest";
import type { ContractArea, ContractHarness, ContractKill } from "./types.ts";

/** What a contract test body gets. */
export type ContractTestContext = {
  /**
   * Skips the test with `reason` (printed in the test's title and the reporter) when
   * `condition` holds: the adapter or harness lacks the capability the test needs.
   */
  skip(condition: boolean, reason: string): void;
};

/** A contract test body. */
export type ContractTestFn = (ctx: ContractTestContext) => Promise<void>;

/** A test that skipped itself, and why. */
export type ContractSkip = {
  testId: string;
  reason: string;
  /** The mutant under test changes nothing on this adapter (`expect: "failure"` mode). */
  mutantNotApplicable?: boolean;
};

/** Registration options, decided per `describeChannelContract` call. */
export type ContractRegistration = {
  /** Areas to register. */
  areas: ReadonlySet<ContractArea>;
  /** Register only these test ids (every id must exist). @defaultValue every test */
  only?: readonly string[];
  /**
   * `"failure"`: each registered test passes only if its body fails (mutation testing).
   * @defaultValue "pass"
   */
  expect?: "pass" | "failure";
  /** Called with each kill in `expect: "failure"` mode. */
  onKill?(kill: ContractKill): void;
  /**
   * Called when a test skips itself (`ctx.skip` with a true condition), with its reason — in
   * `expect: "failure"` mode too (the test is then reported skipped, neither kill nor survivor).
   */
  onSkip?(skip: ContractSkip): void;
  /** Called when a test body starts (`expect: "pass"` mode). */
  onRun?(): void;
};

/** Per-test options. */
export type ContractTestOptions = {
  /** Vitest timeout of this test in ms (the suite's default otherwise). */
  timeout?: number;
};

/** The registrar a contract-test module registers its tests with. */
export type ContractSuite = {
  /** The harness under test. */
  readonly harness: ContractHarness;
  /** Whether `area` is part of this run. */
  has(area: ContractArea): boolean;
  /**
   * Registers one test. `id` is stable, unique in the suite, `area.name` in kebab case.
   * @throws TypeError on a duplicate id.
   */
  test(id: string, title: string, fn: ContractTestFn, options?: ContractTestOptions): void;
  /**
   * Groups tests under a title (Vitest's `describe`). Use it instead of importing `describe`:
   * a run with `only` flattens the groups (Vitest fails a group left without tests).
   */
  describe(title: string, fn: () => void): void;
};

class ContractSkipInMutantRun extends Error {
  override name = "ContractSkipInMutantRun";
}

/**
 * Thrown by a mutant harness whose mutant changes nothing on this adapter (it wraps a capability
 * the adapter does not have, e.g. history on a channel without it): the killing test cannot judge
 * it, and the run reports it skipped with `mutantNotApplicable: true`.
 */
export class MutantNotApplicableError extends Error {
  override name = "MutantNotApplicableError";
}

const firstLine = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";

/**
 * Creates the registrar for one harness and runs `register` with it inside the current
 * `describe`; afterwards checks that every id in `only` named a test.
 *
 * @throws TypeError when `only` names an id no test has (a typo must not pass as "all killed").
 */
export function registerContract(
  harness: ContractHarness,
  registration: ContractRegistration,
  register: (suite: ContractSuite) => void,
  defaultTimeoutMs: number,
): void {
  const ids = new Set<string>();
  const only = registration.only ? new Set(registration.only) : undefined;
  const suite: ContractSuite = {
    harness,
    has: (area) => registration.areas.has(area),
    describe: (title, fn) => (only ? fn() : describe(title, fn)),
    test(id, title, fn, options = {}) {
      if (ids.has(id)) throw new TypeError(`duplicate contract test id "${id}"`);
      ids.add(id);
      if (only && !only.has(id)) return;
      const timeout = options.timeout ?? defaultTimeoutMs;
      if (registration.expect !== "failure") {
        it(`${title} [${id}]`, { timeout }, async (ctx) => {
          registration.onRun?.();
          await fn({
            skip: (condition, reason) => {
              if (condition) registration.onSkip?.({ testId: id, reason });
              ctx.skip(condition, reason);
            },
          });
        });
        return;
      }
      it(`[${id}] must fail: ${title}`, { timeout: timeout + 5_000 }, async (ctx) => {
        const skip = (condition: boolean, reason: string) => {
          if (condition) throw new ContractSkipInMutantRun(reason);
        };
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<"timeout">((resolve) => {
          timer = setTimeout(() => resolve("timeout"), timeout);
        });
        try {
          const result = await Promise.race([fn({ skip }).then(() => "passed" as const), timedOut]);
          if (result === "timeout") {
            registration.onKill?.({ testId: id, by: "timeout", message: `over ${timeout} ms` });
            return;
          }
        } catch (error) {
          if (
            error instanceof ContractSkipInMutantRun ||
            error instanceof MutantNotApplicableError
          ) {
            // Not applicable to this harness: it cannot judge the mutant either way.
            registration.onSkip?.({
              testId: id,
              reason: error.message,
              ...(error instanceof MutantNotApplicableError ? { mutantNotApplicable: true } : {}),
            });
            ctx.skip(error.message);
            return;
          }
          registration.onKill?.({ testId: id, by: "assertion", message: firstLine(error) });
          return;
        } finally {
          clearTimeout(timer);
        }
        throw new Error(`survived: contract test ${id} passed against the mutant`);
      });
    },
  };
  register(suite);
  // With `only`, groups are flattened (`suite.describe` runs its body now): every test is known.
  const unknown = [...(only ?? [])].filter((id) => !ids.has(id));
  if (unknown.length > 0) {
    throw new TypeError(
      `unknown contract test id(s) ${unknown.map((id) => `"${id}"`).join(", ")} ` +
        `(known: ${[...ids].join(", ")})`,
    );
  }
}
