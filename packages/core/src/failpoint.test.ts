import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const script = (body: string) => [
  "--input-type=module",
  "-e",
  `import { failpoint } from ${JSON.stringify(new URL("./failpoint.ts", import.meta.url).href)};\n${body}`,
];

describe("failpoints", () => {
  it("do nothing unless armed", () => {
    const r = spawnSync(process.execPath, script("failpoint('x'); console.log('alive')"), {
      encoding: "utf8",
      env: { ...process.env, HERALD_FAILPOINTS: "" },
    });
    expect(r.stdout.trim()).toBe("alive");
  });

  it("kill the process with SIGKILL when armed with kill", () => {
    const r = spawnSync(process.execPath, script("failpoint('a'); console.log('after')"), {
      encoding: "utf8",
      env: { ...process.env, HERALD_FAILPOINTS: "a=kill" },
    });
    expect(r.signal).toBe("SIGKILL");
    expect(r.stdout).toBe("");
  });

  it("fire only on the n-th hit and throw a typed error", () => {
    const body =
      "for (let i = 1; i <= 3; i++) { try { failpoint('b'); console.log('ok', i) } catch (e) { console.log(e.code, e.failpoint, i) } }";
    const r = spawnSync(process.execPath, script(body), {
      encoding: "utf8",
      env: { ...process.env, HERALD_FAILPOINTS: "b=throw@2" },
    });
    expect(r.stdout.trim().split("\n")).toEqual(["ok 1", "HERALD_FAILPOINT b 2", "ok 3"]);
  });
});
