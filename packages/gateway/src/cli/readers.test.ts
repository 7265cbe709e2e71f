/**
 * [H17] follow-up 5: the CLI's readers on a store they cannot inspect say so (a `:memory:` store
 * is per-process memory; a missing file is reported and not created), plain user errors print
 * without the `--verbose` hint, a `queue retry|cancel` that changes nothing exits non-zero
 * with the reason, and one whose `--all <status>` selects nothing says "no intent is <status>"
 * and exits 0 ([H28] newcomer follow-up).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SqliteStateStore } from "@herald/core";
import { newIntent, outboundMessage, textReceipt, trackChild } from "@herald/core/testing";
import { describe, expect, it } from "vitest";

const cli = fileURLToPath(new URL("./main.ts", import.meta.url));

function run(args: string[]) {
  const child = trackChild(
    spawn(process.execPath, ["--conditions=herald-source", cli, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once("close", (code) => resolve({ code, stdout, stderr })),
  );
}

function config(store: unknown) {
  const dir = mkdtempSync(join(tmpdir(), "herald-readers-"));
  const file = join(dir, "herald.config.json");
  writeFileSync(file, JSON.stringify({ store }));
  return { dir, file };
}

describe("CLI readers", () => {
  it("a :memory: store is per-process memory: nothing to inspect (not '0 pending')", async () => {
    const { file } = config({ sqlite: { path: ":memory:" } });
    for (const args of [["queue", "ls"], ["recover"]]) {
      const result = await run([...args, "-c", file]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/":memory:": per-process memory[\s\S]*nothing to inspect/);
      expect(result.stdout).not.toMatch(/pending/);
    }
    const doctor = await run(["doctor", "-c", file]);
    expect(doctor.stdout).toMatch(/per-process memory/);
    expect(doctor.stdout).not.toMatch(/0 pending/);
  });

  it("a missing store file is reported with its path and not created", async () => {
    const { dir, file } = config({ sqlite: { path: "data/state.db" } });
    const path = join(dir, "data", "state.db");
    const ls = await run(["queue", "ls", "-c", file]);
    expect(ls.code).toBe(1);
    expect(ls.stderr).toContain(`no store exists at ${path}`);
    const doctor = await run(["doctor", "-c", file]);
    expect(doctor.stdout).toContain(`no store exists at ${path}`);
    expect(existsSync(path)).toBe(false);
    expect(existsSync(join(dir, "data"))).toBe(false);
  });

  it("plain user errors carry no --verbose hint; retry of a sent intent exits 1 with the reason", async () => {
    const { dir, file } = config({ sqlite: { path: "state.db" } });
    const store = new SqliteStateStore({ path: join(dir, "state.db") });
    const [created] = await store.enqueueIntents([newIntent(outboundMessage("hi"))]);
    const id = created?.intent.id ?? "";
    await store.leaseDueIntents({
      owner: "w",
      now: Date.now(),
      leaseMs: 60_000,
      limit: 1,
      statuses: ["pending"],
    });
    await store.transitionIntents([{ id, from: "pending", to: "sending", owner: "w" }]);
    await store.transitionIntents([{ id, from: "sending", to: "committing", owner: "w" }]);
    await store.transitionIntents([
      { id, from: "committing", to: "sent", owner: "w", patch: { receipt: textReceipt(["m1"]) } },
    ]);
    await store.close();

    const show = await run(["queue", "show", "nope", "-c", file]);
    expect(show.code).toBe(1);
    expect(show.stderr).toMatch(/no intent nope/);
    expect(show.stderr).not.toMatch(/--verbose/);
    const status = await run(["queue", "ls", "-s", "faild", "-c", file]);
    expect(status.code).toBe(1);
    expect(status.stderr).toMatch(/unknown status "faild"/);
    expect(status.stderr).not.toMatch(/--verbose/);

    const retry = await run(["queue", "retry", id, "-c", file]);
    expect(retry.code).toBe(1);
    expect(retry.stderr).toMatch(new RegExp(`nothing changed: ${id} .+`));
  });

  it("retry|cancel --all <status> with no such intent says so and exits 0; no ids and no --all is a usage error", async () => {
    const { dir, file } = config({ sqlite: { path: "state.db" } });
    const store = new SqliteStateStore({ path: join(dir, "state.db") });
    await store.enqueueIntents([newIntent(outboundMessage("hi"))]); // pending, not failed
    await store.close();

    const retry = await run(["queue", "retry", "--all", "failed", "-c", file]);
    expect(retry.stderr).toBe("");
    expect(retry.stdout).toBe("retry: no intent is failed; nothing to do\n");
    expect(retry.code).toBe(0);
    const cancel = await run(["queue", "cancel", "--all", "failed", "--channel", "qa", "-c", file]);
    expect(cancel.stdout).toBe("cancel: no intent is failed on channel qa; nothing to do\n");
    expect(cancel.code).toBe(0);
    const bare = await run(["queue", "retry", "-c", file]);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toMatch(/nothing to retry: give intent ids or --all <status>/);
  });
});
