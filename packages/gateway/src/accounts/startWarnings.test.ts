/**
 * [H17] follow-up 3: a healthy start logs no warning. A receiver still connecting after a good
 * start (Telegram's first `getUpdates` in flight: state `connecting`) is not "not up yet"; only
 * an account whose start failed or that was stopped is warned about.
 */
import type { ChannelMessageAdapter } from "@herald/core";
import { type ChannelAccount, ChannelAccountError } from "@herald/plugin-sdk/channel-message";
import { afterEach, expect, it } from "vitest";
import { benchAccount, benchGateway } from "../testing/fakeChannels.ts";

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

function capture() {
  const lines: { level: string; msg?: string | undefined }[] = [];
  const at = (level: string) => (_o: object, msg?: string) => void lines.push({ level, msg });
  const logger = {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: () => logger,
  };
  return { lines, logger };
}

/** An account whose receiver starts fine but reports `connecting` until its first poll. */
function connecting(name: string, reject = false) {
  const bench = benchAccount("chat", name);
  bench.channel.plugin = {
    ...bench.channel.plugin,
    async createAccount(_config, deps) {
      if (reject)
        throw new ChannelAccountError("chat", deps.accountId, "token rejected (401)", "fix it");
      return {
        adapter: bench.adapter as ChannelMessageAdapter,
        receiver: {
          start: async () => {},
          stop: async () => {},
          health: () => ({ state: "connecting" as const, since: 0, detail: "starting" }),
        },
        close: async () => {},
      } satisfies ChannelAccount;
    },
  };
  return bench;
}

it("no warning when every account started and a receiver is still on its first poll", async () => {
  const { lines, logger } = capture();
  const g = benchGateway([connecting("A")], { logger, delivery: { pollIntervalMs: 10_000 } });
  close = g.close;
  await g.gateway.start();
  expect(lines.filter((l) => l.level === "warn" || l.level === "error")).toEqual([]);
  expect(lines.some((l) => l.level === "info" && l.msg === "account started")).toBe(true);
});

it("a stopped account is still warned about", async () => {
  const { lines, logger } = capture();
  const g = benchGateway([connecting("A"), connecting("B", true)], {
    logger,
    delivery: { pollIntervalMs: 10_000 },
  });
  close = g.close;
  await g.gateway.start();
  expect(lines.filter((l) => l.level === "warn").map((l) => l.msg)).toEqual(["account stopped"]);
});
