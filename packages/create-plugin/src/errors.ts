/**
 * What `create-plugin` refuses, and why (a typed error per cause, each naming what to change).
 *
 * @module
 */

/** Why a plugin could not be created. */
export type CreatePluginProblem =
  /** The name is not an npm package name, or gives no valid plugin id. */
  | "bad_name"
  /** The target folder exists and is not empty (nothing is overwritten). */
  | "target_not_empty"
  /** No name was given, or an unknown option. */
  | "bad_arguments"
  /** The package's template is missing (a broken install or an unbuilt checkout). */
  | "template_missing";

/**
 * `create-plugin` refused: `problem` says which rule, the message says what was wrong and how
 * to fix it. Nothing was written.
 */
export class CreatePluginError extends Error {
  override name = "CreatePluginError";
  /** Stable code, `HERALD_CREATE_<PROBLEM>`. */
  readonly code: string;
  readonly problem: CreatePluginProblem;
  constructor(problem: CreatePluginProblem, message: string) {
    super(message);
    this.problem = problem;
    this.code = `HERALD_CREATE_${problem.toUpperCase()}`;
  }
}
