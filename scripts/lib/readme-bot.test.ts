/**
 * The README's 10-line bot runs as written: it is extracted, started as the README says (with
 * `HERALD_QA_TOKEN`), sent a message through the QA platform it starts, and must answer.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { scaledMs, trackChild } from "@herald/core/testing";
import { afterAll, describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const section = readme.slice(readme.indexOf("## A 10-line bot"));
const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? "";

/** A port free on 127.0.0.1 right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("README: the 10-line bot", () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill("SIGKILL");
  });

  it("is at most 10 lines and answers, also after a restart on the same state", {
    timeout: scaledMs(60_000),
  }, async () => {
    expect(
      code
        .trim()
        .split("\n")
        .filter((l) => l.trim() !== "").length,
    ).toBeLessThanOrEqual(10);
    const dir = join(root, ".cache/docs-examples");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "readme-bot.ts");
    // The README's fixed ports (4610, the gateway's 8787), swapped for free ones: a second
    // checkout's suite may run this same bot on this machine at the same time.
    const qaPort = await freePort();
    const ported = code
      .replace("port: 4610", `port: ${qaPort}`)
      .replace("herald({ channels: [qa] })", "herald({ channels: [qa], http: { port: 0 } })");
    expect(ported).not.toBe(code);
    expect(ported).toContain("http: { port: 0 }");
    writeFileSync(file, ported);
    // A fresh working folder: the bot keeps its state in ./.herald, kept across the restart.
    const cwd = mkdtempSync(join(tmpdir(), "herald-readme-bot-"));
    for (const text of ["hello readme", "hello again"]) {
      const bot = trackChild(
        spawn(process.execPath, ["--conditions=herald-source", file], {
          cwd,
          env: { ...process.env, HERALD_QA_TOKEN: "herald:qa-secret" },
          stdio: ["ignore", "pipe", "pipe"],
        }),
      );
      child = bot;
      const url = await new Promise<string>((resolve, reject) => {
        let err = "";
        bot.stderr?.on("data", (d) => {
          err += d;
        });
        bot.stdout?.on("data", (d) => {
          const m = /open (http:\/\/\S+)\//.exec(String(d));
          if (m?.[1]) resolve(m[1]);
        });
        bot.once("exit", (c) => reject(new Error(`bot exited (${c}): ${err}`)));
      });
      await fetch(`${url}/ui/chats/web/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text, user_id: "reader" }),
      });
      let texts: string[] = [];
      for (let i = 0; i < 200 && !texts.includes(`You said: ${text}`); i++) {
        await new Promise((r) => setTimeout(r, 50));
        const res = (await (await fetch(`${url}/control/messages?chat=web`)).json()) as {
          messages: Array<{ text: string }>;
        };
        texts = res.messages.map((m) => m.text);
      }
      expect(texts).toContain(`You said: ${text}`);
      bot.kill("SIGKILL");
      await new Promise((r) => bot.once("exit", r));
    }
  });
});
