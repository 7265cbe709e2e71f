/**
 * C55 · `maxAgeMs` across a crash ([H25]): a process is SIGKILLed with a reply durable but not
 * sent (a retry scheduled, or mid-send with `sending` written); the next process starts after
 * the reply's age passed → it ends `expired`, nothing sent; before → it is sent exactly once.
 * Real child processes, a real SQLite file, the fake platform over HTTP.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { serveFakePlatform } from "../testing/fakePlatformServer.ts";
import { trackChild } from "../testing/teardown.ts";

const worker = fileURLToPath(new URL("./testing/expiryCrashWorker.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "herald-expiry-crash-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

function runWorker(config: object, failpoints = "") {
  return new Promise<{
    code: number | null;
    signal: string | null;
    stdout: string;
    stderr: string;
  }>((resolve) => {
    const child = trackChild(
      spawn(process.execPath, [worker, JSON.stringify(config)], {
        env: { ...process.env, HERALD_FAILPOINTS: failpoints },
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
    child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

const MAX_AGE_MS = 60_000;

describe("C55 · maxAgeMs in a crash test", () => {
  it.each([
    ["a retry was scheduled", "after", "delivery.after_retry_scheduled", ["expired"], 0],
    ["a retry was scheduled", "before", "delivery.after_retry_scheduled", ["sent"], 1],
    ["sending was written", "after", "send.after_sending", ["expired"], 0],
    ["sending was written", "before", "send.after_sending", ["sent"], 1],
  ] as const)(
    "C55 SIGKILL after %s, restart %s the age passed (%s) → %j, %i visible",
    async (_what, when, failpoint, statuses, visible) => {
      const platform = new FakePlatform({ idempotent: true });
      // The first send is refused (never reached the platform): a retry is scheduled.
      if (failpoint === "delivery.after_retry_scheduled") {
        platform.failNext({ type: "refuse" }, 1, "send");
      }
      const server = await serveFakePlatform(platform);
      const base = {
        storePath: join(dir, `run-${++files}.db`),
        platformUrl: server.url,
        maxAgeMs: MAX_AGE_MS,
      };
      try {
        const first = await runWorker({ ...base, phase: "produce" }, `${failpoint}=kill@1`);
        expect(first.signal).toBe("SIGKILL");
        const callsBefore = platform.calls.filter((c) => c.op === "send").length;
        const second = await runWorker({
          ...base,
          phase: "drain",
          clockOffsetMs: when === "after" ? 2 * MAX_AGE_MS : 0,
        });
        expect(second.code, second.stderr).toBe(0);
        expect(JSON.parse(second.stdout.trim())).toEqual(statuses);
        expect(platform.visible()).toHaveLength(visible);
        // Expired: no platform call at all after the restart.
        if (when === "after") {
          expect(platform.calls.filter((c) => c.op === "send")).toHaveLength(callsBefore);
        }
      } finally {
        await server.close();
      }
    },
    60_000,
  );
});
