/**
 * Config errors: each names the field path and the fix.
 *
 * @module
 */
import { HeraldError } from "@herald/core";

/** One problem in a config, with where it is and how to fix it. */
export type ConfigIssue = { path: string; message: string; fix?: string };

/** The config file is missing, unreadable or invalid. */
export class ConfigError extends HeraldError {
  readonly file: string;
  readonly issues: ConfigIssue[];
  constructor(file: string, issues: ConfigIssue[]) {
    super(
      "HERALD_CONFIG_INVALID",
      `${file}: ${issues.length} problem(s)\n${issues
        .map((i) => `  - ${i.path || "(root)"}: ${i.message}${i.fix ? `\n    fix: ${i.fix}` : ""}`)
        .join("\n")}`,
    );
    this.file = file;
    this.issues = issues;
  }
}
