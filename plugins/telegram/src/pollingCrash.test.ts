/**
 * CASES C07 against the real polling receiver: updates 100 (slow, chat A) and 101 (fast, chat
 * B); the process is SIGKILLed by a failpoint right after 101's work is committed, before 100's
 * is done. Telegram must still hold 100; after a restart 100 is processed once and 101 is not
 * processed again.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runNodeChild, SqliteStateStore } from "@herald/plugin-sdk/testing";
import { afterAll, describe, expect, it } from "vitest";
import { FAKE_BOT, FakeTelegram } from "./testing/FakeTelegram.ts";
import type { PollingChildConfig } from "./testing/pollingChild.ts";

const child = fileURLToPath(new URL("./testing/pollingChild.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "herald-telegram-c07-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("C07 · polling watermark across a crash", () => {
  it("keeps update 100 on Telegram through the crash, then processes 100 once and 101 once", async () => {
    const fake = await FakeTelegram.start();
    try {
      const a = fake.createChat({ type: "private", title: "A" });
      const b = fake.createChat({ type: "private", title: "B" });
      fake.userPost({ chat: a.id, text: "slow question", updateId: 100 });
      fake.userPost({ chat: b.id, text: "fast question", updateId: 101 });
      const logPath = join(dir, "processed.log");
      writeFileSync(logPath, "");
      const base: Omit<PollingChildConfig, "phase"> = {
        apiRoot: fake.apiRoot,
        token: FAKE_BOT.token,
        storePath: join(dir, "herald.db"),
        logPath,
        slowChat: String(a.id),
        until: 101,
      };
      const processed = () => readFileSync(logPath, "utf8").split("\n").filter(Boolean);
      const nodeArgs = ["--conditions=herald-source"];

      const first = await runNodeChild(child, [JSON.stringify({ ...base, phase: "first" })], {
        failpoints: { "receive.after_commit": "kill" },
        nodeArgs,
      });
      expect(first.killed, `not killed at receive.after_commit: ${first.stderr}`).toBe(true);
      expect(processed()).toEqual(["101"]);
      // 100 was never confirmed: Telegram still has it (and 101, whose confirmation waits for it).
      expect(fake.queue().confirmedBelow).toBeLessThanOrEqual(100);
      expect(fake.queue().pending.map((u) => u.update_id)).toEqual([100, 101]);
      const store = new SqliteStateStore({ path: base.storePath });
      const saved = await store.getWatermark({
        channel: "telegram",
        accountId: "main",
        source: "updates",
      });
      await store.close();
      expect(saved === undefined || Number(saved) < 100).toBe(true);

      const restart = await runNodeChild(child, [JSON.stringify({ ...base, phase: "restart" })], {
        nodeArgs,
      });
      expect(restart.code, `restart failed: ${restart.stderr}`).toBe(0);
      expect(processed()).toEqual(["101", "100"]);
    } finally {
      await fake.close();
    }
  });
});
