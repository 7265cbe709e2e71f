import { describe, expect, it } from "vitest";
import type { TurnMessage, TurnMessageInput } from "../turn/types.ts";
import { routeMessage } from "./route.ts";

const msg = (m: TurnMessageInput): TurnMessage => ({ id: "m", at: 0, ...m }) as TurnMessage;
const tool = msg({ role: "tool", name: "Read" });
const policy = msg({ role: "policy-request", text: "allow?" });
const kind = (m: TurnMessage, o?: Parameters<typeof routeMessage>[1]) => routeMessage(m, o).kind;

describe("routeMessage", () => {
  it("routes by role as the seed's table says", () => {
    expect(kind(msg({ role: "user", text: "hi" }))).toBe("drop");
    expect(kind(msg({ role: "assistant", text: "done" }))).toBe("top-level");
    expect(kind(tool)).toBe("thread-log");
    expect(kind(msg({ role: "subagent", name: "x", status: "started" }))).toBe("thread-log");
    expect(kind(msg({ role: "system", event: "subagent_update", text: "." }))).toBe("thread-log");
    expect(kind(msg({ role: "system", event: "cron", text: "nightly" }))).toBe("top-level");
    expect(kind(msg({ role: "system", event: "policy_rejected", text: "." }))).toBe("thread-log");
    expect(kind(policy)).toBe("thread-message");
    expect(kind(msg({ role: "command", command: "/x" }))).toBe("thread-log");
    expect(kind(msg({ role: "log", text: "." }))).toBe("thread-log");
  });

  it("honours filters: verbose, subagent status and per-role overrides; user is always dropped", () => {
    const quiet = { filters: { verbose: false, subagentStatus: false } };
    expect(kind(msg({ role: "system", event: "subagent_update", text: "." }), quiet)).toBe("drop");
    expect(kind(msg({ role: "log", text: "." }), quiet)).toBe("drop");
    expect(kind(msg({ role: "subagent", name: "x", status: "done" }), quiet)).toBe("drop");
    const routes = { filters: { routes: { tool: "top-level", user: "top-level" } as const } };
    expect(kind(tool, routes)).toBe("top-level");
    expect(kind(msg({ role: "user", text: "hi" }), routes)).toBe("drop");
  });

  it("collapses threads to top-level when threads are off, and drops the log in DMs", () => {
    expect(kind(tool, { threads: false })).toBe("top-level");
    expect(kind(policy, { threads: false })).toBe("top-level");
    expect(kind(tool, { dm: true })).toBe("drop");
    expect(kind(policy, { dm: true })).toBe("top-level");
    expect(kind(msg({ role: "assistant", text: "hi" }), { dm: true })).toBe("top-level");
  });
});
