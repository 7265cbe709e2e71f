/**
 * Contract test: the plugin loads as a gateway loads it (issue [H27] item 4) — the account's
 * config through the plugin's own `configSchema` (strict, defaults applied), secrets read by env
 * var name, the account opened with `openChannelAccount` (the function the gateway's account
 * supervisor opens accounts with: `createAccount`, else `createAdapter` + `createReceiver`), a send through the adapter it returned and, on a channel
 * that receives, an inbound message through its receiver. A harness that builds its adapter
 * directly never exercises these: a default that breaks the account (a missing env var, a
 * default URL or field the adapter rejects) or a schema that refuses a valid config went
 * unnoticed. It does not catch a request timeout shorter than the long-poll wait: the message it
 * posts wakes the held poll at once (docs/plugin-authoring.md, "Polling: the recipe").
 *
 * @module
 */
import { type ChannelPluginDeps, openChannelAccount } from "@herald/plugin-sdk/channel-message";
import { eventually, openTestRun } from "@herald/plugin-sdk/testing";
import { expect, onTestFinished } from "vitest";
import type { ContractSuite } from "./registry.ts";
import { CONTRACT_MAX_LENGTH, normalizeSpace } from "./setup.ts";
import type { ContractPluginLoad } from "./types.ts";

const MISSING =
  "the harness has no `plugin`: add `plugin: { plugin: <your default export>, config: (connection) => " +
  "<the account config a user writes>, env: (connection) => <its secret env vars> }` so the suite " +
  "loads the plugin as a gateway does";

/** Registers `accounts.plugin-load`. */
export function pluginLoadTests(suite: ContractSuite): void {
  const { harness: h, test } = suite;
  if (!suite.has("accounts")) return;
  test(
    "accounts.plugin-load",
    "the plugin loads as a gateway loads it: configSchema → createAccount → send and receive → close",
    async (ctx) => {
      ctx.skip(!h.plugin, MISSING);
      const { plugin, config, env } = h.plugin as ContractPluginLoad;
      const platform = await h.platform({ maxLength: CONTRACT_MAX_LENGTH, adapterDefaults: true });
      onTestFinished(() => platform.close());
      const parsed = plugin.configSchema.safeParse(config(platform.connection));
      expect(
        parsed.error?.message,
        `${plugin.id}: configSchema refuses the config`,
      ).toBeUndefined();
      const vars = env(platform.connection);
      const accountId = h.accountId ?? "contract";
      const run = await openTestRun({ adapters: [], accountId });
      onTestFinished(() => run.close());
      const opening = new AbortController();
      const deps: ChannelPluginDeps = {
        accountId,
        logger: run.logger,
        clock: Date.now,
        secret: (name) => {
          const value = vars[name];
          if (value === undefined) {
            throw new Error(`${plugin.id}: the config names env var ${name}; plugin.env sets none`);
          }
          return value;
        },
      };
      // The gateway's own opening path (createAccount, else createAdapter + createReceiver).
      const account = await openChannelAccount(plugin, parsed.data, {
        ...deps,
        sink: run.sink(plugin.id, accountId),
        signal: opening.signal,
      });
      run.onClose(() => account.close());
      run.runtime.addAdapter(account.adapter, accountId);

      const target = await platform.createTarget("group");
      await run.runtime.send(run.message(plugin.id, target, "loaded by the gateway's steps"), {
        idempotencyKey: "plugin-load",
      });
      const shown = (await platform.visible(target)).map((m) => normalizeSpace(m.text));
      expect(shown).toEqual(["loaded by the gateway's steps"]);

      const { inbound } = platform;
      const receiver = account.receiver;
      if (!inbound) return; // a send-only channel: the send half was checked
      expect(
        receiver,
        `${plugin.id}: the platform has an inbound side, the account no receiver`,
      ).toBeDefined();
      if (receiver?.webhook) inbound.connectWebhook?.(receiver.webhook.bind(receiver));
      await receiver?.start?.();
      run.onClose(() => receiver?.stop?.());
      const posted = await inbound.post(target, { text: "hello, loaded plugin" });
      await eventually(
        () => run.handled.map((t) => t.input.platformMessageId),
        (ids) => ids.includes(posted.platformMessageId),
        { what: `the account's receiver delivers ${posted.platformMessageId}` },
      );
    },
  );
}
