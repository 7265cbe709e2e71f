/**
 * Contract tests: two accounts of one channel in one herald (DESIGN §2 "Accounts"). Each
 * message leaves through the account it names, and each account drops only its own echoes —
 * the other account's bot is just another bot to it.
 *
 * @module
 */
import type { ChannelReceiver } from "@herald/plugin-sdk/channel-message";
import { eventually, openTestRun, type ReceiveOutcome } from "@herald/plugin-sdk/testing";
import { expect, onTestFinished } from "vitest";
import type { ContractSuite } from "./registry.ts";
import { CONTRACT_MAX_LENGTH, normalizeSpace } from "./setup.ts";
import type { ContractSecondAccount, JsonValue } from "./types.ts";

/** Registers the `accounts` area. */
export function accountTests(suite: ContractSuite): void {
  const { harness: h, test, describe } = suite;
  if (suite.has("accounts"))
    describe("two accounts of one channel", () => {
      test(
        "accounts.two-accounts",
        "each message leaves through its own account; each account drops only its own echoes",
        async (ctx) => {
          const platform = await h.platform({ maxLength: CONTRACT_MAX_LENGTH });
          onTestFinished(() => platform.close());
          ctx.skip(!platform.secondAccount, "the platform has no second account (secondAccount)");
          const second = platform.secondAccount as ContractSecondAccount;
          const first = { accountId: h.accountId ?? "contract", connection: platform.connection };
          const accounts = [first, second].map((a) => ({
            ...a,
            adapter: h.createAdapter(a.connection as JsonValue),
          }));
          const channel = accounts[0]?.adapter.id ?? "";
          const run = await openTestRun({
            adapters: accounts.map(({ accountId, adapter }) => ({ accountId, adapter })),
            receive: { allowBots: true },
          });
          const receivers: ChannelReceiver[] = [];
          run.onClose(async () => {
            for (const r of receivers) await r.stop?.();
          });
          onTestFinished(() => run.close());

          const target = await platform.createTarget("group");
          for (const a of accounts) {
            const message = run.message(channel, target, `from ${a.accountId}`, {
              accountId: a.accountId,
            });
            const receipt = await run.runtime.send(message, {
              idempotencyKey: `accounts-${a.accountId}`,
            });
            expect(receipt.platformMessageIds).toHaveLength(1);
          }
          const sent = (await platform.visible(target)).filter((m) => m.text.startsWith("from "));
          expect(sent.map((m) => normalizeSpace(m.text))).toEqual(
            accounts.map((a) => `from ${a.accountId}`),
          );
          expect(sent[0]?.author.id, "the two accounts post as different bots").not.toBe(
            sent[1]?.author.id,
          );

          const inbound = platform.inbound;
          const createReceiver = h.createReceiver?.bind(h);
          if (!inbound || !createReceiver) return; // send-only: the send half was checked
          for (const [i, a] of accounts.entries()) {
            const receiver = createReceiver(
              a.connection as JsonValue,
              run.sink(channel, a.accountId),
            );
            receivers.push(receiver);
            // One webhook URL per account; the platform posts every event to each.
            if (receiver.webhook && inbound.connectWebhook) {
              inbound.connectWebhook(
                receiver.webhook.bind(receiver),
                i === 1 ? second.accountId : undefined,
              );
            }
            await receiver.start?.();
          }
          const own = await inbound.post(target, { text: "echo of the first", author: "self" });
          const other = await inbound.post(target, {
            text: "echo of the second",
            author: "second_self",
          });
          const outcome = (accountId: string, platformMessageId: string) =>
            eventually(
              () =>
                run.outcomes.find(
                  (o) =>
                    "message" in o &&
                    o.message.platformMessageId === platformMessageId &&
                    o.message.accountId === accountId,
                ),
              (o) => o !== undefined,
              { what: `the outcome of ${platformMessageId} for account ${accountId}` },
            ) as Promise<ReceiveOutcome>;
          const [a, b] = accounts as [(typeof accounts)[0], (typeof accounts)[0]];
          expect(await outcome(a.accountId, own.platformMessageId)).toMatchObject({
            status: "dropped",
            reason: "self",
          });
          expect((await outcome(b.accountId, own.platformMessageId)).status).toBe("processed");
          expect(await outcome(b.accountId, other.platformMessageId)).toMatchObject({
            status: "dropped",
            reason: "self",
          });
          expect((await outcome(a.accountId, other.platformMessageId)).status).toBe("processed");
        },
      );
    });
}
