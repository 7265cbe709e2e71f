import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { endTracked, trackChild, trackCloser, trackedCount } from "./teardown.ts";

describe("the test teardown registry", () => {
  it("SIGKILLs a tracked child that still runs, and forgets one that exited", async () => {
    const sleeper = trackChild(spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"]));
    const quick = trackChild(spawn(process.execPath, ["-e", ""]));
    await once(quick, "exit");
    expect(trackedCount().children).toBe(1);
    await endTracked();
    expect(sleeper.signalCode).toBe("SIGKILL");
    expect(trackedCount().children).toBe(0);
  });

  it("runs the closers not untracked first, and survives one that throws or hangs", async () => {
    const closed: string[] = [];
    trackCloser(() => closed.push("a"));
    const untrack = trackCloser(() => closed.push("b"));
    trackCloser(() => {
      throw new Error("already closed");
    });
    trackCloser(() => new Promise(() => {})); // never settles: bounded by the timeout
    untrack();
    await endTracked(50);
    expect(closed).toEqual(["a"]);
    expect(trackedCount().closers).toBe(0);
  });
});
