/**
 * What the console reads and acts on: the gateway's store and runtime, its accounts' health
 * and its redaction.
 *
 * @module
 */
import type { HeraldLogger, MessageRuntime, MessageStateStore } from "@herald/core";
import type { AccountHealth } from "../accounts/AccountSupervisor.ts";
import type { AttemptLog } from "./attempts.ts";

/** Minimum length of the console token, in characters (a shorter one is a `ConfigError`). */
export const MIN_CONSOLE_TOKEN_LENGTH = 16;

/** Console settings of a gateway (`createGateway({ console })`). */
export type ConsoleOptions = {
  /**
   * The operator token (read from the env var `console.tokenEnv` names): at least
   * {@link MIN_CONSOLE_TOKEN_LENGTH} characters, else `createGateway` throws a `ConfigError` at
   * `console.token`.
   */
  token: string;
  /**
   * Serve the console on a non-loopback `http.host` too. Off by default: the console is for
   * this machine only unless you put it behind your own TLS and access control.
   * @defaultValue false
   */
  allowRemote?: boolean;
};

/** Everything the console's routes use. */
export type ConsoleDeps = {
  token: string;
  /** Mount path. @defaultValue "/console" */
  base: string;
  store: MessageStateStore;
  runtime: Pick<
    MessageRuntime,
    "ledger" | "deadLetters" | "worker" | "onTurn" | "onActivity" | "store"
  >;
  accounts: () => readonly AccountHealth[];
  /** The gateway's redaction (the same one `herald queue show` uses). */
  redact: (text: string) => string;
  logger: HeraldLogger;
  /** Attempts this process saw, per intent (the timeline's in-process part). */
  attempts: AttemptLog;
  /** Epoch ms. */
  clock: () => number;
};
