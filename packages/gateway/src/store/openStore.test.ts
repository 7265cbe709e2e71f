/**
 * State is never destroyed or shared by surprise: a SQLite file is locked to one gateway (in
 * this process or another, released on close and when the holder is SIGKILLed), CLI readers
 * work beside it, and `:memory:` is memory (no file named `:memory:`).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newIntent, trackChild } from "@herald/core/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { parseConfig } from "../config/load.ts";
import { openStore } from "./openStore.ts";
import { StoreLockedError } from "./storeLock.ts";

const tmp = () => mkdtempSync(join(tmpdir(), "herald-store-"));
const sqlite = (path: string) => parseConfig({ store: { sqlite: { path } } });

describe("openStore", () => {
  it(":memory: is a private in-memory store: no file is created", async () => {
    const dir = tmp();
    const a = await openStore(sqlite(":memory:"), dir, {}, { lock: true });
    const b = await openStore(sqlite(":memory:"), dir, {}, { lock: true });
    await a.enqueueIntents([newIntent()]);
    expect((await a.countIntents({})).pending).toBe(1);
    expect((await b.countIntents({})).pending).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
    await a.close();
    await b.close();
  });

  it("refuses a second gateway on one SQLite file with a clear error; readers still work", async () => {
    const dir = tmp();
    const config = sqlite("state.db");
    const first = await openStore(config, dir, {}, { lock: true });
    await first.enqueueIntents([newIntent()]);
    const second = openStore(config, dir, {}, { lock: true });
    await expect(second).rejects.toBeInstanceOf(StoreLockedError);
    await expect(second).rejects.toThrow(
      /state\.db is in use by another herald gateway[\s\S]*fix: stop the other gateway first/,
    );
    const reader = await openStore(config, dir); // herald queue ls, doctor
    expect((await reader.countIntents({})).pending).toBe(1);
    await reader.close();
    await first.close();
    const again = await openStore(config, dir, {}, { lock: true });
    expect((await again.countIntents({})).pending).toBe(1); // nothing was wiped
    await again.close();
  });

  it("a gateway in another process holds the lock until it dies, also by SIGKILL", async () => {
    const dir = tmp();
    const file = join(dir, "state.db");
    const holder = trackChild(
      spawn(
        process.execPath,
        [
          "--conditions=herald-source",
          "--input-type=module",
          "-e",
          `const { openStore } = await import(${JSON.stringify(new URL("./openStore.ts", import.meta.url).href)});
         const { parseConfig } = await import(${JSON.stringify(new URL("../config/load.ts", import.meta.url).href)});
         await openStore(parseConfig({ store: { sqlite: { path: ${JSON.stringify(file)} } } }), "/", {}, { lock: true });
         process.stdout.write("locked\\n");
         setInterval(() => {}, 1000);`,
        ],
        { stdio: ["ignore", "pipe", "inherit"] },
      ),
    );
    onTestFinished(() => {
      holder.kill("SIGKILL");
    });
    await new Promise<void>((resolve, reject) => {
      holder.stdout.on("data", (d) => String(d).includes("locked") && resolve());
      holder.once("exit", (code) => reject(new Error(`holder exited ${code}`)));
    });
    await expect(openStore(sqlite(file), "/", {}, { lock: true })).rejects.toBeInstanceOf(
      StoreLockedError,
    );
    holder.kill("SIGKILL");
    await new Promise((resolve) => holder.once("exit", resolve));
    const store = await openStore(sqlite(file), "/", {}, { lock: true });
    await store.close();
    expect(existsSync(file)).toBe(true);
  });
});
