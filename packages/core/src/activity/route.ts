/**
 * `routeMessage` (seed `threaded-activity-log.md`, "Event routing" and "DM behavior"): where
 * one activity message goes. Pure.
 *
 * | role / event | default |
 * |---|---|
 * | `user` | `drop` (always) |
 * | `assistant` (the reply) | `top-level` |
 * | `tool`, `command`, `error` | `thread-log` |
 * | `subagent` | `thread-log` (`drop` when `filters.subagentStatus` is false) |
 * | `system` `subagent_update` | `thread-log` (`drop` when `filters.verbose` is false) |
 * | `system` `cron` | `top-level` |
 * | `system` `policy_approved` / `policy_rejected`, other events | `thread-log` |
 * | `policy-request` | `thread-message` |
 * | `log` | `thread-log` when `filters.verbose`, else `drop` |
 * | `reasoning` | `drop` |
 *
 * Then visibility: threads off (globally, for the space, or a channel without thread replies
 * and edits) turns `thread-log` and `thread-message` into `top-level`; in a DM `thread-log`
 * becomes `drop` and `thread-message` becomes `top-level`.
 *
 * @module
 */
import type { TurnMessage } from "../turn/types.ts";
import type { ActivityFilters, Destination, RouteOptions } from "./types.ts";

function defaultRoute(message: TurnMessage, filters: ActivityFilters): Destination["kind"] {
  const verbose = filters.verbose ?? true;
  switch (message.role) {
    case "user":
    case "reasoning":
      return "drop";
    case "assistant":
      return "top-level";
    case "tool":
    case "command":
    case "error":
      return "thread-log";
    case "subagent":
      return (filters.subagentStatus ?? true) ? "thread-log" : "drop";
    case "system":
      if (message.event === "cron") return "top-level";
      if (message.event === "subagent_update") return verbose ? "thread-log" : "drop";
      return "thread-log";
    case "policy-request":
      return "thread-message";
    case "log":
      return verbose ? "thread-log" : "drop";
  }
}

/**
 * Where an activity message goes, honouring `filters` and visibility.
 *
 * @example
 * routeMessage(toolMessage)                  // → { kind: "thread-log" }
 * routeMessage(toolMessage, { dm: true })    // → { kind: "drop" }
 * routeMessage(toolMessage, { threads: false }) // → { kind: "top-level" }
 */
export function routeMessage(message: TurnMessage, options: RouteOptions = {}): Destination {
  const filters = options.filters ?? {};
  if (message.role === "user") return { kind: "drop" };
  let kind = filters.routes?.[message.role] ?? defaultRoute(message, filters);
  if (options.dm) {
    if (kind === "thread-log") kind = "drop";
    else if (kind === "thread-message") kind = "top-level";
  } else if (options.threads === false && (kind === "thread-log" || kind === "thread-message")) {
    kind = "top-level";
  }
  return { kind };
}
