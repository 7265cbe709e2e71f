/**
 * `herald(config)`: says where its HTTP server listens at start, refuses a second gateway on
 * its SQLite file, and releases the file when it fails to start.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { QaPlatform } from "@herald/plugin-qa-channel/testing";
import { describe, expect, it } from "vitest";
import { ConfigError } from "./config/errors.ts";
import { herald } from "./herald.ts";
import { StoreLockedError } from "./store/storeLock.ts";

const sink = () => {
  const out = { text: "", write: (s: string) => (out.text += s) };
  return out;
};

describe("herald()", () => {
  it("a refused config names every problem in one run and creates no store ([H28] newcomer follow-up)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "herald-refused-"));
    const store = { sqlite: { path: "state.db" } };
    const qa = { plugin: "@herald/plugin-qa-channel", config: { baseUrl: "http://127.0.0.1:9" } };
    // A top-level typo and a plugin config typo: both reported at once.
    const both = await herald(
      { store: { sqlit: {} }, channels: [{ ...qa, config: { baseUrl: 1 } }] } as never,
      { dir, env: {} },
    ).catch((e: unknown) => e);
    expect(both).toBeInstanceOf(ConfigError);
    expect((both as ConfigError).issues.map((i) => i.path)).toEqual([
      "store.sqlit",
      "channels[0].config.baseUrl",
    ]);
    // A missing secret and a missing console token: refused before the store is created.
    for (const config of [
      { store, channels: [qa] },
      { store, channels: [qa], console: { tokenEnv: "HERALD_CONSOLE_TOKEN" } },
    ]) {
      const env = "console" in config ? { HERALD_QA_TOKEN: "herald:qa-secret" } : {};
      await expect(herald(config, { dir, env })).rejects.toBeInstanceOf(ConfigError);
      expect(existsSync(join(dir, "state.db"))).toBe(false);
    }
  });

  it("prints the HTTP address at start (127.0.0.1:8787 unless the config says otherwise)", async () => {
    const notice = sink();
    const bot = await herald(
      { store: { sqlite: { path: ":memory:" } }, http: { host: "127.0.0.1", port: 0 } },
      { notice },
    );
    await bot.start();
    await bot.stop();
    expect(notice.text).toMatch(
      new RegExp(`^herald: HTTP server on ${bot.url ?? "?"} \\(/healthz, /metrics, /webhooks/`),
    );
    expect(notice.text).toContain('"http": { "host", "port" }');
  });

  it("start() without onMessage refuses when a channel receives; with it, it runs", async () => {
    const platform = await QaPlatform.start({ port: 0 });
    const config = {
      store: { sqlite: { path: ":memory:" } },
      channels: [{ plugin: "@herald/plugin-qa-channel", config: { baseUrl: platform.url } }],
      http: { host: "127.0.0.1", port: 0 },
    };
    const env = { HERALD_QA_TOKEN: "herald:qa-secret" };
    const bot = await herald(config, { env, notice: sink() });
    await expect(bot.start()).rejects.toThrow(
      /handler: no bot handler[\s\S]*fix: call bot\.onMessage\(async \(turn\) => \{ … \}\) before bot\.start\(\)/,
    );
    bot.onMessage(async (turn) => {
      await turn.reply(turn.text);
    });
    await bot.start();
    await bot.stop();
    await platform.close();
  });

  it("stores no failure reason with a secret it read, even when a plugin does not redact it", async () => {
    const platform = await QaPlatform.start({ port: 0 });
    platform.createChat({ id: "c1", type: "group" });
    const config = {
      store: { sqlite: { path: ":memory:" } },
      channels: [{ plugin: "@herald/plugin-qa-channel", config: { baseUrl: platform.url } }],
      http: { host: "127.0.0.1", port: 0 },
    };
    const bot = await herald(config, {
      env: { HERALD_QA_TOKEN: "herald:qa-secret" },
      notice: sink(),
    });
    bot.onMessage(async () => {});
    await bot.start();
    try {
      // A proxy quoting the token back: the QA channel puts descriptions in its messages as is.
      platform.faults.failNext(
        { kind: "status", status: 400, description: "token herald:qa-secret rejected" },
        { op: "send" },
      );
      await bot.runtime
        .send(
          {
            id: "m1",
            channel: "qa",
            direction: "outbound",
            target: { kind: "group", id: "c1" },
            body: { markdown: "hi" },
          },
          { idempotencyKey: "leak" },
        )
        .catch(() => undefined);
      const stored = JSON.stringify(await bot.runtime.store.getIntentByIdempotencyKey("leak"));
      expect(stored).toContain("token [redacted] rejected");
      expect(stored).not.toContain("herald:qa-secret");
    } finally {
      await bot.stop();
      await platform.close();
    }
  });

  it("a busy HTTP port is a config error naming http.port and the fix, and the store is let go", async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const port = (busy.address() as AddressInfo).port;
    const dir = mkdtempSync(join(tmpdir(), "herald-port-"));
    const bot = await herald({ http: { host: "127.0.0.1", port } }, { dir, notice: sink() });
    const started = bot.start();
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    await expect(started).rejects.toThrow(
      new RegExp(
        `http\\.port: 127\\.0\\.0\\.1:${port} is in use[\\s\\S]*fix: set "http": \\{ "port"`,
      ),
    );
    busy.close();
    const again = await herald({ http: { host: "127.0.0.1", port: 0 } }, { dir, notice: sink() });
    await again.stop();
  });

  it("refuses a second gateway on one SQLite file, and frees the file when it fails to start", async () => {
    const dir = mkdtempSync(join(tmpdir(), "herald-fn-"));
    const config = { http: { host: "127.0.0.1", port: 0 } };
    const first = await herald(config, { dir, notice: sink() });
    await expect(herald(config, { dir })).rejects.toBeInstanceOf(StoreLockedError);
    await first.stop();
    await expect(
      herald({ ...config, channels: [{ plugin: "@herald/no-such-plugin" }] }, { dir }),
    ).rejects.toBeInstanceOf(ConfigError);
    const again = await herald(config, { dir, notice: sink() }); // the failed one let go
    await again.stop();
  });
});
