/**
 * [H15] 1 and [H17] 5 at the gateway: accounts open and start concurrently and are supervised —
 * a failed start or a dropped connection is retried with backoff (fake clock), rejected
 * credentials stop only that account (with the fix and `herald doctor`), and each account's
 * health shows in `/healthz` and `/metrics`.
 */
import type { ChannelMessageAdapter } from "@herald/core";
import {
  type ChannelAccount,
  ChannelAccountError,
  type ChannelReceiver,
  type ReceiverState,
} from "@herald/plugin-sdk/channel-message";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createHttpApp } from "../http/server.ts";
import { type BenchAccount, benchAccount, benchGateway } from "../testing/fakeChannels.ts";

/** A scripted receiver: `start` fails `failStarts` times; `state` is what `health()` says. */
class ScriptedReceiver implements ChannelReceiver {
  starts = 0;
  state: ReceiverState = "down";
  readonly failStarts: number;
  constructor(failStarts: number) {
    this.failStarts = failStarts;
  }
  async start() {
    this.starts += 1;
    if (this.starts <= this.failStarts) throw new Error(`boom #${this.starts}`);
    this.state = "up";
  }
  async stop() {
    this.state = "down";
  }
  health() {
    return { state: this.state, since: 0 };
  }
}

type Script = { failStarts?: number; rejectCredentials?: boolean };

/** A bench account whose plugin opens with `createAccount` (counted) and a scripted receiver. */
function scripted(name: string, script: Script = {}) {
  const bench: BenchAccount = benchAccount("chat", name);
  const opened: ChannelAccount[] = [];
  const receivers: ScriptedReceiver[] = [];
  const shared = new ScriptedReceiver(script.failStarts ?? 0);
  bench.channel.plugin = {
    ...bench.channel.plugin,
    async createAccount(_config, deps) {
      if (script.rejectCredentials)
        throw new ChannelAccountError(
          "chat",
          deps.accountId,
          "the platform rejected the token (401)",
          "check the token in CHAT_TOKEN",
        );
      const receiver = receivers.length === 0 ? shared : new ScriptedReceiver(0);
      receivers.push(receiver);
      const account: ChannelAccount = {
        adapter: bench.adapter as ChannelMessageAdapter,
        receiver,
        identity: { id: `bot-${name}` },
        close: async () => {},
      };
      opened.push(account);
      return account;
    },
  };
  return { bench, opened, receivers };
}

let close: (() => Promise<void>) | undefined;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
});
afterEach(async () => {
  vi.useRealTimers();
  await close?.();
  close = undefined;
});

const health = (g: ReturnType<typeof benchGateway>, account: string) =>
  g.gateway.accounts().find((a) => a.account === account);

describe("account supervision", () => {
  it("one receiver throwing in start() never fails gateway.start(): the others run, it is retried with backoff", async () => {
    const a = scripted("A", { failStarts: 2 });
    const b = scripted("B");
    const g = benchGateway([a.bench, b.bench], { supervision: { backoffBaseMs: 1_000 } });
    close = g.close;
    g.gateway.onMessage(async (turn) => {
      await turn.reply(`echo ${turn.text}`);
    });
    await g.gateway.start(); // resolves although A failed
    expect(health(g, "B")).toMatchObject({ state: "up", restarts: 0, identity: { id: "bot-B" } });
    expect(health(g, "A")).toMatchObject({ state: "connecting", detail: "start failed: boom #1" });

    await vi.advanceTimersByTimeAsync(999);
    expect(a.receivers[0]?.starts).toBe(1); // backoff not over yet
    await vi.advanceTimersByTimeAsync(1);
    expect(a.receivers[0]?.starts).toBe(2);
    expect(health(g, "A")?.detail).toBe("start failed: boom #2");
    await vi.advanceTimersByTimeAsync(1_999); // the second wait doubles
    expect(a.receivers[0]?.starts).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(health(g, "A")).toMatchObject({ state: "up", restarts: 2 });

    // B served messages all along, through its own adapter.
    const t = g.gateway.runtime.receive(
      { id: "1", chat: "g", from: "u", text: "hi" },
      { channel: "chat", accountId: "B" },
    );
    expect((await t.done).status).toBe("processed");
  });

  it("rejected credentials stop only that account, naming the fix and herald doctor; no retries", async () => {
    const a = scripted("A", { rejectCredentials: true });
    const b = scripted("B");
    const lines: { level: string; msg?: string | undefined }[] = [];
    const at = (level: string) => (_o: object, msg?: string) => void lines.push({ level, msg });
    const logger = {
      debug: at("debug"),
      info: at("info"),
      warn: at("warn"),
      error: at("error"),
      child: () => logger,
    };
    const g = benchGateway([a.bench, b.bench], {
      delivery: { pollIntervalMs: 10_000 },
      logger,
    });
    close = g.close;
    await g.gateway.start();
    // The operator sees why, and what to do, in the log.
    expect(
      lines.some(
        (l) =>
          l.level === "error" &&
          l.msg?.includes("chat/A") &&
          l.msg.includes("check the token in CHAT_TOKEN") &&
          l.msg.includes("herald doctor"),
      ),
    ).toBe(true);
    const h = health(g, "A");
    expect(h).toMatchObject({ state: "down", stopped: true });
    expect(h?.detail).toContain("check the token in CHAT_TOKEN");
    expect(h?.detail).toContain("herald doctor");
    expect(health(g, "B")?.state).toBe("up");
    await vi.advanceTimersByTimeAsync(600_000);
    expect(health(g, "A")).toMatchObject({ state: "down", restarts: 0 });
    expect(g.gateway.runtime.adapter("chat", "A")).toBeUndefined(); // never registered
  });

  it("a receiver that goes down is re-opened with backoff", async () => {
    const a = scripted("A");
    const g = benchGateway([a.bench], {
      supervision: { backoffBaseMs: 500, healthCheckMs: 100 },
    });
    close = g.close;
    await g.gateway.start();
    expect(health(g, "A")?.state).toBe("up");
    (a.receivers[0] as ScriptedReceiver).state = "down"; // the socket dropped for good
    await vi.advanceTimersByTimeAsync(100);
    expect(health(g, "A")?.state).not.toBe("up");
    await vi.advanceTimersByTimeAsync(500);
    expect(a.opened).toHaveLength(2); // the account was opened again
    expect(health(g, "A")).toMatchObject({ state: "up", restarts: 1 });
  });

  it("shows each account's health in /healthz and /metrics", async () => {
    const a = scripted("A", { rejectCredentials: true });
    const b = scripted("B");
    const g = benchGateway([a.bench, b.bench]);
    close = g.close;
    await g.gateway.start();
    const app = createHttpApp({
      store: g.store,
      metrics: g.gateway.metrics,
      receivers: new Map(),
      accounts: () => g.gateway.accounts(),
      logger: { debug() {}, info() {}, warn() {}, error() {}, child: (() => undefined) as never },
    });
    const res = await app.request("/healthz");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; accounts: { account: string }[] };
    expect(body.status).toBe("degraded");
    expect(body.accounts).toEqual([
      expect.objectContaining({ channel: "chat", account: "A", state: "down", stopped: true }),
      expect.objectContaining({ channel: "chat", account: "B", state: "up" }),
    ]);
    const metrics = await (await app.request("/metrics")).text();
    expect(metrics).toContain('herald_account_up{channel="chat",account="A"} 0');
    expect(metrics).toContain('herald_account_up{channel="chat",account="B"} 1');
    expect(metrics).toContain('herald_account_state{channel="chat",account="A",state="down"} 1');
  });
});

describe("bot events", () => {
  it("gateway.onEvent(type, fn) gets typed events once; they start no turn", async () => {
    const a = benchAccount("chat", "A");
    const normalize = a.adapter.receive?.normalize.bind(a.adapter.receive);
    (a.adapter.receive as { normalize: unknown }).normalize = (raw: unknown, ctx: never) => {
      const r = raw as { join?: string };
      if (!r.join) return normalize?.(raw, ctx);
      return {
        kind: "event",
        type: "member_joined",
        id: `join:${r.join}`,
        channel: "chat",
        target: { kind: "group", id: "g" },
        members: [{ id: r.join }],
      };
    };
    const g = benchGateway([a]);
    close = g.close;
    const joined: string[] = [];
    let turns = 0;
    g.gateway.onMessage(() => {
      turns += 1;
    });
    g.gateway.onEvent("member_joined", (e) => {
      joined.push(e.members?.[0]?.id ?? "");
    });
    g.gateway.onEvent("message_deleted", () => {
      throw new Error("not this one");
    });
    await g.gateway.start();
    const first = g.gateway.runtime.receive({ join: "u9" }, { channel: "chat", accountId: "A" });
    expect((await first.done).status).toBe("event");
    const again = g.gateway.runtime.receive({ join: "u9" }, { channel: "chat", accountId: "A" });
    expect((await again.done).status).toBe("duplicate");
    expect(joined).toEqual(["u9"]);
    expect(turns).toBe(0);
  });
});
