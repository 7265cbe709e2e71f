/**
 * The contract suite's types. The harness types — what a channel plugin hands the suite
 * ({@link ContractHarness}, {@link ContractPlatform}, …) — live in `@herald/plugin-sdk/testing`
 * so a published plugin's `./testing` types need only the SDK; they are re-exported here
 * unchanged, so `@herald/plugin-qa-channel/contract` keeps offering them. The suite's own
 * options ({@link ContractOptions}, {@link ContractArea}) are declared here.
 *
 * @module
 */
export type {
  ContractAuthor,
  ContractCall,
  ContractForgeKind,
  ContractGuarantee,
  ContractHarness,
  ContractHarnessModule,
  ContractInbound,
  ContractInboundPost,
  ContractPlatform,
  ContractPlatformOptions,
  ContractPluginLoad,
  ContractRetryAfter,
  ContractSecondAccount,
  JsonValue,
} from "@herald/plugin-sdk/testing";

/** Groups of contract tests; pass some to {@link ContractOptions.areas} to run only those. */
export type ContractArea =
  | "send"
  | "reply"
  | "receive"
  | "batch"
  | "edit"
  | "retry"
  | "rate_limit"
  | "unknown_send"
  | "crash"
  | "origin"
  | "dedupe"
  | "ordering"
  | "live"
  | "render"
  | "accounts"
  | "secrets"
  | "classify"
  /** [H23] reactions, DMs, files, buttons, ephemeral, history (capability-gated). */
  | "features";

/** Every {@link ContractArea}. */
export const CONTRACT_AREAS: readonly ContractArea[] = [
  "send",
  "reply",
  "batch",
  "edit",
  "retry",
  "rate_limit",
  "unknown_send",
  "crash",
  "receive",
  "origin",
  "dedupe",
  "ordering",
  "live",
  "render",
  "accounts",
  "secrets",
  "classify",
  "features",
];

/** Options of `describeChannelContract`. */
export type ContractOptions = {
  /** Run only these areas. @defaultValue every area */
  areas?: readonly ContractArea[];
  /** Suffix for the top-level describe title (variants of one harness). */
  variant?: string;
  /** Per-test timeout in ms on an idle machine, scaled by `HERALD_TEST_TIME_SCALE`. @defaultValue 20_000 */
  timeoutMs?: number;
  /**
   * Register only the tests with these ids (each title ends with its id in brackets, e.g.
   * `[batch.receipts]`). An unknown id fails the collection.
   * @defaultValue every test of the selected areas
   */
  only?: readonly string[];
  /**
   * `"failure"`: mutation testing of the suite — each registered test passes only when its body
   * fails against the (mutant) adapter; a body that passes fails the test ("survived"), and a
   * body that skips (the harness lacks what the test needs) is reported skipped via `onSkip`:
   * it cannot judge the mutant.
   * @defaultValue "pass"
   */
  expect?: "pass" | "failure";
  /** In `expect: "failure"` mode, called with how each test killed the mutant. */
  onKill?(kill: ContractKill): void;
  /** Called with each test that skipped itself and why (in either `expect` mode). */
  onSkip?(skip: {
    testId: string;
    reason: string;
    /** The mutant under test changes nothing on this adapter (`expect: "failure"` mode). */
    mutantNotApplicable?: boolean;
  }): void;
};

/** How a test body ended in `expect: "failure"` mode. */
export type ContractKill = {
  /** The test's id. */
  testId: string;
  /** `assertion`: the body threw; `timeout`: it did not finish within the kill timeout. */
  by: "assertion" | "timeout";
  /** The first line of the error that killed the mutant. */
  message: string;
};
