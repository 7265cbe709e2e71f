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

/**
 * What is wrong with a console token, or undefined when it is usable: shorter than
 * {@link MIN_CONSOLE_TOKEN_LENGTH} characters, or holding whitespace or a control character (a
 * token ending in a newline, as `echo … > file` or `$'…\n'` makes it, can never be typed into the
 * sign-in form: it would lock every operator out with "wrong token"). Never contains the token.
 */
export function consoleTokenProblem(token: string): string | undefined {
  if (/[\s\p{Cc}]/u.test(token))
    return "the console token contains whitespace or a control character (a trailing newline?); no sign-in could match it";
  if (token.length < MIN_CONSOLE_TOKEN_LENGTH)
    return `the console token has ${token.length} characters; it needs at least ${MIN_CONSOLE_TOKEN_LENGTH}`;
  return undefined;
}

/** Console settings of a gateway (`createGateway({ console })`). */
export type ConsoleOptions = {
  /**
   * The operator token (read from the env var `console.tokenEnv` names, trimmed): at least
   * {@link MIN_CONSOLE_TOKEN_LENGTH} characters with no whitespace or control character, else
   * `createGateway` throws a `ConfigError` at `console.token` ({@link consoleTokenProblem}).
   */
  token: string;
  /**
   * Serve the console on a non-loopback `http.host` too. Off by default: the console is for
   * this machine only unless you put it behind your own TLS and access control.
   * @defaultValue false
   */
  allowRemote?: boolean;
  /**
   * How long a sign-in lasts, in ms: the session cookie's `Max-Age`, and the age past which the
   * gateway refuses the cookie even if a browser kept it. Signing in again starts a new one.
   * @defaultValue {@link DEFAULT_CONSOLE_SESSION_TTL_MS} (12 hours)
   */
  sessionTtlMs?: number;
};

/** Default lifetime of a console sign-in, in ms: 12 hours. */
export const DEFAULT_CONSOLE_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** Everything the console's routes use. */
export type ConsoleDeps = {
  token: string;
  /** Lifetime of a sign-in, in ms (see {@link ConsoleOptions.sessionTtlMs}). */
  sessionTtlMs: number;
  /** Mount path. @defaultValue "/console" */
  base: string;
  store: MessageStateStore;
  runtime: Pick<
    MessageRuntime,
    "ledger" | "deadLetters" | "worker" | "onTurn" | "onActivity" | "store" | "pendingInbound"
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
