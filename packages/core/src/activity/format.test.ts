import { describe, expect, it } from "vitest";
import type { TurnMessage, TurnMessageInput } from "../turn/types.ts";
import { formatTurnLogEntry, renderTurnLogLine, TRUNCATED_MARKER, truncateText } from "./format.ts";

const AT = Date.UTC(2025, 0, 1, 12, 4, 2);
const msg = (m: TurnMessageInput): TurnMessage => ({ id: "m1", at: AT, ...m }) as TurnMessage;
const utc = { timeZone: "UTC" };

describe("formatTurnLogEntry", () => {
  it("returns null for user, assistant and reasoning messages", () => {
    expect(formatTurnLogEntry(msg({ role: "user", text: "hi" }), utc)).toBeNull();
    expect(formatTurnLogEntry(msg({ role: "assistant", text: "hello" }), utc)).toBeNull();
    expect(formatTurnLogEntry(msg({ role: "reasoning", text: "hmm" }), utc)).toBeNull();
  });

  it("returns a structured entry for tool, subagent, policy, command and system messages", () => {
    const lines = [
      msg({ role: "tool", name: "Read", input: "src/app.ts" }),
      msg({ role: "tool", name: "Grep", input: '"TODO"', content: "7 matches" }),
      msg({ role: "subagent", name: "Explore", status: "started", subagentId: "Explore#1" }),
      msg({ role: "subagent", name: "Explore", status: "done", durationMs: 14_000 }),
      msg({ role: "system", event: "policy_approved", text: "rm -rf /tmp/cache" }),
      msg({ role: "policy-request", text: "allow network access?" }),
      msg({ role: "command", command: "/status", output: "3 jobs" }),
      msg({ role: "system", event: "subagent_update", text: "Explore read 12 files" }),
    ].map((m) => formatTurnLogEntry(m, utc));
    expect(lines.map((e) => e && renderTurnLogLine(e))).toEqual([
      "• 12:04:02  tool: Read(src/app.ts)",
      '• 12:04:02  tool: Grep("TODO") — 7 matches',
      "• 12:04:02  subagent: Explore started",
      "• 12:04:02  subagent: Explore done (14s)",
      "• 12:04:02  policy: approved rm -rf /tmp/cache",
      "• 12:04:02  policy: requested allow network access?",
      "• 12:04:02  command: /status — 3 jobs",
      "• 12:04:02  system: Explore read 12 files",
    ]);
    expect(lines.map((e) => e?.kind)).toEqual([
      "tool",
      "tool",
      "subagent",
      "subagent",
      "policy",
      "policy",
      "command",
      "system",
    ]);
    expect(lines[2]).toMatchObject({ subagentId: "Explore#1", messageRole: "subagent" });
  });

  it("truncates tool content longer than maxToolPreview", () => {
    const content = "x".repeat(1_000);
    const entry = formatTurnLogEntry(msg({ role: "tool", name: "Cat", content }), {
      ...utc,
      maxToolPreview: 100,
    });
    expect(entry?.summary.endsWith(TRUNCATED_MARKER)).toBe(true);
    expect(entry?.summary.length).toBeLessThanOrEqual("tool: ".length + 100);
    expect(entry?.rawLength).toBe("tool: Cat() — ".length + 1_000);
    const short = formatTurnLogEntry(msg({ role: "tool", name: "Cat", content: "ok" }), utc);
    expect(short?.summary).toBe("tool: Cat() — ok");
  });

  it("replaces newlines in tool content with spaces", () => {
    const entry = formatTurnLogEntry(
      msg({ role: "tool", name: "Bash", input: "ls", content: "a.ts\nb.ts\r\n  c.ts\n" }),
      utc,
    );
    expect(entry?.summary).toBe("tool: Bash(ls) — a.ts b.ts c.ts");
  });

  it("never cuts a surrogate pair in half", () => {
    const cut = truncateText(`${"a".repeat(7)}${"😀".repeat(10)}`, 8 + TRUNCATED_MARKER.length);
    expect(cut).toBe(`aaaaaaa${TRUNCATED_MARKER}`);
  });
});
