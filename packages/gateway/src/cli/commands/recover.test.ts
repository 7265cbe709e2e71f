/**
 * [H28] C51: `herald recover` prints a human summary (it printed raw JSON for inbound and live
 * sessions); `--json` prints the summary as one JSON object for scripts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStateStore } from "@herald/core";
import { DEFAULT_QA_BOT, QaPlatform } from "@herald/plugin-qa-channel/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { spawnCli } from "../../testing/cliProcess.ts";
import { formatRecoverSummary, type RecoverSummary } from "./runtimeOps.ts";

describe("herald recover (C51)", () => {
  it("says in words what each pass did", () => {
    const text = formatRecoverSummary({
      sends: { toUnknown: 2, committed: 1, released: 0, skewRepaired: 0 },
      passes: 1,
      inbound: { redispatched: 3, processed: 3, deadLettered: 0, held: 0 },
      live: { finalized: 0, deleted: 0, kept: 0, waiting: 0 },
    });
    expect(text).toBe(
      [
        "herald recover: done (1 pass(es))",
        "  sends:    1 confirmed sent, 2 maybe sent (now unknown_after_send: reconciled, or held for you)",
        "  inbound:  3 unfinished message(s) handled again (3 done), 0 moved to dead letters",
        "  live:     no open live session",
        "  next:     pending and unknown_after_send intents are delivered or reconciled by herald start (see herald queue ls)",
        "",
      ].join("\n"),
    );
  });

  it("prints the summary, not JSON; --json prints it as JSON", { timeout: 60_000 }, async () => {
    const platform = await QaPlatform.start({ port: 0 });
    const dir = mkdtempSync(join(tmpdir(), "herald-recover-"));
    onTestFinished(async () => {
      await platform.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const file = join(dir, "herald.config.json");
    writeFileSync(
      file,
      JSON.stringify({
        channels: [{ plugin: "@herald/plugin-qa-channel", config: { baseUrl: platform.url } }],
      }),
    );
    mkdirSync(join(dir, ".herald")); // readers need an existing store
    await new SqliteStateStore({ path: join(dir, ".herald", "state.db") }).close();
    const env = { ...process.env, HERALD_QA_TOKEN: DEFAULT_QA_BOT.token };
    const human = await spawnCli(["recover", "-c", file], { env }).done;
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^herald recover: done \(1 pass\(es\)\)\n {2}sends: {4}nothing/);
    expect(human.stdout).not.toContain("{");
    const json = await spawnCli(["recover", "--json", "-c", file], { env }).done;
    expect(json.code).toBe(0);
    const summary = JSON.parse(json.stdout) as RecoverSummary;
    expect(summary).toEqual({
      sends: { toUnknown: 0, committed: 0, released: 0, skewRepaired: 0 },
      passes: 1,
      inbound: { redispatched: 0, processed: 0, deadLettered: 0, held: 0 },
      live: { finalized: 0, deleted: 0, kept: 0, waiting: 0 },
    });
  });
});
