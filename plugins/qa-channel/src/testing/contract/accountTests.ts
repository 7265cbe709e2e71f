/**
 * Contract tests: two accounts of one channel in one herald (DESIGN §2 "Accounts"). Each
 * message leaves through the account it names, and each account drops only its own echoes —
 * the other account's bot is just another bot to it.
 *
 * @module
 */
import type { ChannelReceiver } from "@herald/plugin-sdk/channel-message";
import { gatewayFailureOrigin } from "@herald/plugin-sdk/channel-message";
import { eventually, openTestRun, type ReceiveOutcome } from "@herald/plugin-sdk/testing";
import { expect, onTestFinished } from "vitest";
import type { ContractSuite, ContractTestContext } from "./registry.ts";
import { CONTRACT_MAX_LENGTH, normalizeSpace } from "./setup.ts";
import type { ContractSecondAccount, JsonValue } from "./types.ts";

/**
 * Two accounts of one channel on one test run (one store), each with its adapter and — where
 * the harness has a receiver — its receiver started. `undefined` fields: send-only.
 */
async function openTwoAccounts(h: ContractSuite["harness"], ctx: ContractTestContext) {
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
  const startReceivers = async () => {
    const inbound = platform.inbound;
    const createReceiver = h.createReceiver?.bind(h);
    if (!inbound || !createReceiver) return undefined;
    for (const [i, a] of accounts.entries()) {
      const receiver = createReceiver(a.connection as JsonValue, run.sink(channel, a.accountId));
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
    return inbound;
  };
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
  return { platform, run, channel, accounts, a, b, startReceivers, outcome };
}

/** Registers the `accounts` area. */
export function accountTests(suite: ContractSuite): void {
  const { harness: h, test, describe } = suite;
  if (suite.has("accounts"))
    describe("two accounts of one channel", () => {
      test(
        "accounts.two-accounts",
        "each message leaves through its own account; each account drops only its own echoes",
        async (ctx) => {
          const { platform, run, channel, accounts, a, b, startReceivers, outcome } =
            await openTwoAccounts(h, ctx);
          const target = await platform.createTarget("group");
          for (const account of accounts) {
            const message = run.message(channel, target, `from ${account.accountId}`, {
              accountId: account.accountId,
            });
            const receipt = await run.runtime.send(message, {
              idempotencyKey: `accounts-${account.accountId}`,
            });
            expect(receipt.platformMessageIds).toHaveLength(1);
          }
          const sent = (await platform.visible(target)).filter((m) => m.text.startsWith("from "));
          expect(sent.map((m) => normalizeSpace(m.text))).toEqual(
            accounts.map((x) => `from ${x.accountId}`),
          );
          expect(sent[0]?.author.id, "the two accounts post as different bots").not.toBe(
            sent[1]?.author.id,
          );

          const inbound = await startReceivers();
          if (!inbound) return; // send-only: the send half was checked
          const own = await inbound.post(target, { text: "echo of the first", author: "self" });
          const other = await inbound.post(target, {
            text: "echo of the second",
            author: "second_self",
          });
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

      // CASES C56: two herald bots (two accounts, one store) in one room; bot A posts its
      // gateway-failure notice (tagged with the herald origin: native metadata where the
      // platform carries it, the shared outbound registry elsewhere). Bot B must not take it as
      // a prompt — even with allowBots on — and bot A drops it as its own.
      test(
        "accounts.failure-notice",
        "C56: a second bot on the same store drops the first bot's gateway-failure notice as a herald echo",
        async (ctx) => {
          const { platform, run, channel, a, b, startReceivers, outcome } = await openTwoAccounts(
            h,
            ctx,
          );
          const inbound = await startReceivers();
          ctx.skip(!inbound, "the harness has no receiver (send-only)");
          const room = await platform.createTarget("group");
          const notice = run.message(channel, room, "The assistant failed; please try again.", {
            accountId: a.accountId,
            origin: gatewayFailureOrigin("agent_failed_before_reply"),
          });
          const receipt = await run.runtime.send(notice, { idempotencyKey: "c56-notice" });
          const id = receipt.platformMessageIds[0] ?? "";
          // The platform shows the notice to every bot in the room (for channels whose platform
          // never sends a bot's post to other bots, as a redelivery of the same message).
          await inbound?.redeliver(id);
          expect(await outcome(b.accountId, id)).toMatchObject({
            status: "dropped",
            reason: "herald_echo",
          });
          expect((await outcome(a.accountId, id)).status).toBe("dropped");
          expect(run.handled.map((t) => t.input.platformMessageId)).not.toContain(id);
        },
      );
    });
}
