/**
 * Live crash tests with real child processes SIGKILLed at live lifecycle points (DESIGN §9).
 * The fake platform lives in this (parent) process, so what became visible survives the kill;
 * a restarted child recovers, and the chat must show the final once and no preview.
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
import { scaledMs } from "../testing/timeScale.ts";

const child = fileURLToPath(new URL("./testing/crashChild.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "herald-live-crash-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let runs = 0;

// The fake adapter cuts at 20 UTF-16 units.
const FINAL_CHUNKS = ["Hello there, this is", " a long answer."];

function runChild(
  config: object,
  failpoints = "",
): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve) => {
    const proc = trackChild(
      spawn(process.execPath, [child, JSON.stringify(config)], {
        env: { ...process.env, HERALD_FAILPOINTS: failpoints },
        stdio: ["ignore", "ignore", "pipe"],
      }),
    );
    let stderr = "";
    proc.stderr.on("data", (d) => {
      stderr += d;
    });
    proc.on("exit", (code, signal) => resolve({ code, signal, stderr }));
  });
}

async function crashThenRecover(p: {
  /** `HERALD_FAILPOINTS` of the first run, e.g. `live.after_preview=kill@2`. */
  failpoints: string;
  finalize: "fresh" | "in_place";
  onRecover?: "delete" | "keep";
}) {
  const platform = new FakePlatform();
  const server = await serveFakePlatform(platform);
  const base = {
    storePath: join(dir, `live-${++runs}.db`),
    platformUrl: server.url,
    finalize: p.finalize,
    onRecover: p.onRecover ?? "delete",
    workerId: "live-crash",
  };
  try {
    const first = await runChild({ ...base, phase: "stream" }, p.failpoints);
    const atCrash = platform.visible("dm-1").map((m) => m.text);
    const second = await runChild({ ...base, phase: "recover" });
    if (second.code !== 0) throw new Error(`recover failed (${second.code}): ${second.stderr}`);
    return {
      killed: first.signal === "SIGKILL",
      atCrash,
      after: platform.visible("dm-1").map((m) => m.text),
    };
  } finally {
    await server.close();
  }
}

describe("live: SIGKILL at a lifecycle point, then restart", { timeout: scaledMs(60_000) }, () => {
  it("after the fresh final was accepted: recovery deletes both previews, the final stays once", async () => {
    const r = await crashThenRecover({
      failpoints: "live.after_final_accept=kill",
      finalize: "fresh",
    });
    expect(r.killed).toBe(true);
    expect(r.atCrash).toEqual(["Hello there, this is", " a long answer", ...FINAL_CHUNKS]);
    expect(r.after).toEqual(FINAL_CHUNKS);
  });

  it("between two preview deletes: the second preview is deleted after the restart", async () => {
    const r = await crashThenRecover({
      failpoints: "live.before_preview_delete=kill@2",
      finalize: "fresh",
    });
    expect(r.killed).toBe(true);
    expect(r.atCrash).toEqual([" a long answer", ...FINAL_CHUNKS]);
    expect(r.after).toEqual(FINAL_CHUNKS);
  });

  it("while the in-place final edit was in flight: the edit is replayed, the previews become the final", async () => {
    const r = await crashThenRecover({
      failpoints: "send.after_sending=kill",
      finalize: "in_place",
    });
    expect(r.killed).toBe(true);
    expect(r.atCrash).toEqual(["Hello there, this is", " a long answer"]); // before the final edit
    expect(r.after).toEqual(FINAL_CHUNKS);
    expect(r.after).toHaveLength(2); // the previews were reused, nothing was sent twice
  });

  it("right after a preview landed, before it was recorded: recovery finds it and deletes every preview", async () => {
    const r = await crashThenRecover({
      failpoints: "live.after_preview=kill@2",
      finalize: "fresh",
    });
    expect(r.killed).toBe(true);
    expect(r.atCrash).toHaveLength(2);
    expect(r.after).toEqual([]); // the final was never asked for: no final is invented
  });

  it("mid-stream with onRecover keep: the previews stay as the message, nothing is added", async () => {
    const r = await crashThenRecover({
      failpoints: "live.after_preview=kill@2",
      finalize: "fresh",
      onRecover: "keep",
    });
    expect(r.killed).toBe(true);
    expect(r.after).toEqual(r.atCrash);
  });
});
